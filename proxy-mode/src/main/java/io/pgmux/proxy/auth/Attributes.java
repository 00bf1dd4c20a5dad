package io.pgmux.proxy.auth;

/** A cursor over a SCRAM message: {@code attr=value} pairs separated by commas (RFC 5802 §5). */
final class Attributes {
    private final String message;
    private int position;

    Attributes(String message) {
        this.message = message;
    }

    boolean atEnd() {
        return position >= message.length();
    }

    /** The next attribute name, or 0 at the end. */
    char peek() {
        return atEnd() ? 0 : message.charAt(position);
    }

    /** The value of the next attribute, which must be {@code attribute}. */
    String next(char attribute) throws ScramException {
        if (peek() != attribute) {
            throw new ScramException("malformed SCRAM message (attribute \"" + attribute + "\" expected)");
        }
        return value();
    }

    /** Skips optional extensions up to the end. */
    void skipExtensions() throws ScramException {
        while (!atEnd()) {
            skipAny();
        }
    }

    /** Skips optional extensions up to {@code attribute}; returns where it starts. */
    int skipExtensionsUntil(char attribute) throws ScramException {
        while (peek() != attribute) {
            if (atEnd()) {
                throw new ScramException("malformed SCRAM message (attribute \"" + attribute + "\" expected)");
            }
            skipAny();
        }
        return position;
    }

    private void skipAny() throws ScramException {
        char attribute = peek();
        if (!(attribute >= 'a' && attribute <= 'z') && !(attribute >= 'A' && attribute <= 'Z')) {
            throw new ScramException("malformed SCRAM message (attribute expected)");
        }
        value();
    }

    private String value() throws ScramException {
        if (position + 1 >= message.length() || message.charAt(position + 1) != '=') {
            throw new ScramException("malformed SCRAM message (expected \"=\" after attribute)");
        }
        int start = position + 2;
        int comma = message.indexOf(',', start);
        int end = comma < 0 ? message.length() : comma;
        position = comma < 0 ? message.length() : comma + 1;
        if (comma >= 0 && atEnd()) {
            throw new ScramException("malformed SCRAM message (trailing comma)");
        }
        return message.substring(start, end);
    }
}
