package io.pgmux.jdbc.credentials;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The password (and optionally the user name) read from files at each login, so that a secret replaced on disk
 * is used by the next server connection: a Kubernetes secret volume, whose kubelet swaps a symbolic link to a
 * new directory, or a file rewritten by a rotation job. Reading a small file costs far less than the login it
 * serves, so nothing is cached and no change can be missed. One line break at the end of a file (as
 * {@code echo} writes) is not part of the secret.
 */
public final class PasswordFile implements CredentialsProvider {
    private final Path passwordFile;
    private final Path usernameFile;

    /**
     * @param passwordFile the password, the whole file
     * @param usernameFile the user name, or null to keep the pool's
     */
    public PasswordFile(Path passwordFile, Path usernameFile) {
        this.passwordFile = Objects.requireNonNull(passwordFile, "passwordFile");
        this.usernameFile = usernameFile;
    }

    /**
     * @throws IllegalStateException naming the file when it cannot be read or is empty
     */
    @Override
    public Credentials getCredentials() {
        String user = usernameFile == null ? null : read("usernameFile", usernameFile);
        return Credentials.of(user, read("passwordFile", passwordFile));
    }

    private static String read(String setting, Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(setting + " " + file + " cannot be read (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null || e.getMessage().equals(file.toString()) ? "" : ": " + e.getMessage())
                    + ")", e);
        }
        String secret = Secrets.withoutFinalLineBreak(text);
        if (secret.isEmpty()) {
            throw new IllegalStateException(setting + " " + file + " is empty");
        }
        return secret;
    }

    @Override
    public String toString() {
        return "passwordFile " + passwordFile + (usernameFile == null ? "" : ", usernameFile " + usernameFile);
    }
}
