package io.pgmux.jdbc.credentials;

import io.pgmux.core.secret.SecretCommand;
import java.time.Duration;

/**
 * The password printed by a command ({@link SecretCommand}), for token issuers
 * ({@code aws rds generate-db-auth-token …}, {@code gcloud sql generate-login-token},
 * {@code vault read -field=password …}), kept for the cache time, so that a burst of logins runs it once.
 */
public final class PasswordCommand implements CredentialsProvider {
    private final SecretCommand command;

    /**
     * @param command   a shell command line
     * @param cacheTime how long its output is used before it runs again; zero runs it at every login
     * @param timeout   how long it may run; longer, it is killed and the login fails
     */
    public PasswordCommand(String command, Duration cacheTime, Duration timeout) {
        this.command = new SecretCommand("passwordCommand", command, cacheTime, timeout);
    }

    /**
     * @throws IllegalStateException when the command cannot start, fails, prints nothing or outlasts its timeout
     */
    @Override
    public Credentials getCredentials() {
        return Credentials.of(null, command.get());
    }

    @Override
    public String toString() {
        return command.toString();
    }
}
