package io.pgmux.jdbc.credentials;

/** How a secret is read from a file or a command's output. */
final class Secrets {
    private Secrets() {
    }

    /** The text without one final {@code \n} or {@code \r\n}: the line break that ends a line, not the secret. */
    static String withoutFinalLineBreak(String text) {
        if (text.endsWith("\r\n")) {
            return text.substring(0, text.length() - 2);
        }
        if (text.endsWith("\n")) {
            return text.substring(0, text.length() - 1);
        }
        return text;
    }
}
