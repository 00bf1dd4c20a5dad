package io.pgmux.core.secret;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A secret read from a file at each use, so that one replaced on disk is used by the next login: a Kubernetes
 * secret volume, whose kubelet swaps a symbolic link to a new directory, or a file rewritten by a rotation job.
 * Reading a small file costs far less than the login it serves, so nothing is cached and no change can be
 * missed. One line break at the end of the file (as {@code echo} writes) is not part of the secret. Reads block:
 * never on an event loop.
 */
public final class SecretFile {
    private final String setting;
    private final Path file;

    /**
     * @param setting the setting that names the file, for the messages
     * @param file    the secret, the whole file
     */
    public SecretFile(String setting, Path file) {
        this.setting = Objects.requireNonNull(setting, "setting");
        this.file = Objects.requireNonNull(file, "file");
    }

    /**
     * @throws IllegalStateException naming the setting and the file when it cannot be read or is empty
     */
    public String read() {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(this + " cannot be read (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null || e.getMessage().equals(file.toString()) ? "" : ": " + e.getMessage())
                    + ")", e);
        }
        String secret = withoutFinalLineBreak(text);
        if (secret.isEmpty()) {
            throw new IllegalStateException(this + " is empty");
        }
        return secret;
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

    @Override
    public String toString() {
        return setting + " " + file;
    }
}
