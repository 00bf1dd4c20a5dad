package io.pgmux.proxy.auth;

import java.nio.file.Path;

/** A line of an hba, ident or {@code @} names file that pgmux cannot use; the message names file and line. */
public final class HbaFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public HbaFormatException(Path file, int lineNumber, String problem) {
        super(file + " line " + lineNumber + ": " + problem);
    }
}
