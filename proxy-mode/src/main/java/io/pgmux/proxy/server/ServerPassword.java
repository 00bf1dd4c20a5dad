package io.pgmux.proxy.server;

import io.pgmux.core.secret.SecretCommand;
import io.pgmux.core.secret.SecretFile;
import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.protocol.PoolerError;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server password a {@link ServerPasswordSource} names, read for each new server login without RELOAD: the
 * file read again (core's {@link SecretFile}), the command's output kept for its cache time ({@link
 * SecretCommand}). Both block, so they run on the proxy's {@code BlockingWork}, never on an event loop.
 * Connections logged in already keep working whatever the source says later.
 */
public final class ServerPassword {
    private static final Logger log = LoggerFactory.getLogger(ServerPassword.class);

    private final ServerPasswordSource source;
    private final Supplier<String> reader;
    private final Executor blockingWork;
    /** The last password read, kept as one secret while it stays the same (its SCRAM keys are derived once). */
    private volatile PlaintextSecret last;

    /**
     * @param commandTimeout how long the command may run: the login waits for it within server_connect_timeout
     */
    public ServerPassword(ServerPasswordSource source, Duration commandTimeout, Executor blockingWork) {
        this.source = source;
        this.blockingWork = blockingWork;
        if (source.file() != null) {
            SecretFile file = new SecretFile(ServerPasswordSource.FILE_KEY, source.file());
            this.reader = file::read;
        } else {
            SecretCommand command = new SecretCommand(ServerPasswordSource.COMMAND_KEY, source.command(),
                    source.cacheTime(), commandTimeout);
            this.reader = command::get;
        }
    }

    /**
     * Completes with the password, or fails with PgBouncer's server-login error, which the pool keeps for
     * server_login_retry and its clients get; why (the key and its file or command) goes to the log only.
     *
     * @param database the pool's database, for the log
     */
    public CompletableFuture<Secret> read(String database, String user) {
        return CompletableFuture.supplyAsync(() -> {
            String password;
            try {
                password = reader.get();
            } catch (RuntimeException e) {
                log.error("server login of database {} user {} failed: {}", database, user, e.getMessage());
                throw new CompletionException(new ServerErrorException(
                        PoolerError.serverLoginFailed("server password could not be read")));
            }
            PlaintextSecret known = last;
            if (known != null && known.password().equals(password)) {
                return known;
            }
            PlaintextSecret fresh = new PlaintextSecret(password);
            last = fresh;
            return fresh;
        }, blockingWork);
    }

    @Override
    public String toString() {
        return source.toString();
    }
}
