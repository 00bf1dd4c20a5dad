package io.pgmux.jdbc.credentials;

import io.pgmux.core.secret.SecretFile;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The password (and optionally the user name) read from files at each login ({@link SecretFile}), so that a
 * secret replaced on disk is used by the next server connection: a Kubernetes secret volume, whose kubelet swaps
 * a symbolic link to a new directory, or a file rewritten by a rotation job.
 */
public final class PasswordFile implements CredentialsProvider {
    private final SecretFile passwordFile;
    private final SecretFile usernameFile;

    /**
     * @param passwordFile the password, the whole file
     * @param usernameFile the user name, or null to keep the pool's
     */
    public PasswordFile(Path passwordFile, Path usernameFile) {
        this.passwordFile = new SecretFile("passwordFile", Objects.requireNonNull(passwordFile, "passwordFile"));
        this.usernameFile = usernameFile == null ? null : new SecretFile("usernameFile", usernameFile);
    }

    /**
     * @throws IllegalStateException naming the file when it cannot be read or is empty
     */
    @Override
    public Credentials getCredentials() {
        String user = usernameFile == null ? null : usernameFile.read();
        return Credentials.of(user, passwordFile.read());
    }

    @Override
    public String toString() {
        return passwordFile + (usernameFile == null ? "" : ", " + usernameFile);
    }
}
