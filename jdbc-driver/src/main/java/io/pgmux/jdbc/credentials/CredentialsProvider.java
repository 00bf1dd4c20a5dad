package io.pgmux.jdbc.credentials;

/**
 * Gives the user name and password of each new server connection, as HikariCP 7's
 * {@code HikariCredentialsProvider} does (the same shape in pgmux's package: a provider written for HikariCP
 * ports by changing its imports). The pool asks it once per login, on the thread that opens the connection,
 * never when a connection is borrowed; connections already open keep the session they logged in with.
 *
 * <p>An exception thrown here fails that one login with SQLSTATE 08001 and the exception's message; the pool
 * asks again at its next login. Implementations are called from several threads at once.
 */
@FunctionalInterface
public interface CredentialsProvider {
    /**
     * The credentials of the next login: a null user name or password keeps the pool's own ({@code username},
     * {@code password} or those of the URL).
     */
    Credentials getCredentials();
}
