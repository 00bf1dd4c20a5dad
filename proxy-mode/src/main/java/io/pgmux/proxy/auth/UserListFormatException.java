package io.pgmux.proxy.auth;

/** A line of an auth file that does not parse; the message names the line, never its secret. */
public final class UserListFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final int lineNumber;

    public UserListFormatException(int lineNumber, String problem) {
        super("auth file line " + lineNumber + ": " + problem);
        this.lineNumber = lineNumber;
    }

    /** 1-based. */
    public int lineNumber() {
        return lineNumber;
    }
}
