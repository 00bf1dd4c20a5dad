package io.pgmux.proxy.auth;

/** A line of an auth file that does not parse; the message names the file (when read from one) and line, never its secret. */
public final class UserListFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final int lineNumber;

    public UserListFormatException(int lineNumber, String problem) {
        this("auth file", lineNumber, problem);
    }

    /** @param source what the file is called in the message: {@code "auth_file /etc/pgbouncer/userlist.txt"} */
    public UserListFormatException(String source, int lineNumber, String problem) {
        super(source + " line " + lineNumber + ": " + problem);
        this.lineNumber = lineNumber;
    }

    /** 1-based. */
    public int lineNumber() {
        return lineNumber;
    }
}
