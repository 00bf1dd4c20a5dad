package io.pgmux.proxy.client;

import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.auth.AuthQuery;
import io.pgmux.proxy.auth.QueriedUsers;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.parameters.PoolerPrelude;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.server.ServerConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer's start_auth_query: looks up the secret of a user missing from the auth file by running auth_query
 * on a server of the pool of (auth_dbname or the client's database, auth_user), without blocking: the stage
 * completes on whatever thread the server answered on. A user the query does not return is unknown; so is a user
 * it returns more than once, a broken query the log names. A user it returns with a NULL secret (PgBouncer's
 * default query does so for an expired password) exists without a password: trust lets it in, every password
 * method refuses it, as PgBouncer does.
 */
final class UserLookup {
    private static final Logger log = LoggerFactory.getLogger(UserLookup.class);

    /**
     * What the lookup found: the secret, null for an unknown user, or the error to refuse the client with
     * (the auth database is missing or disabled, the query failed, no server could be had).
     */
    record Outcome(Secret secret, ErrorResponse refusal, Throwable acquireFailure) {
        static final Outcome UNKNOWN = new Outcome(null, null, null);

        static Outcome refused(ErrorResponse error) {
            return new Outcome(null, error, null);
        }
    }

    private final ProxyContext context;

    UserLookup(ProxyContext context) {
        this.context = context;
    }

    CompletionStage<Outcome> find(AuthQuery authQuery, String clientDatabase, String user) {
        String database = authQuery.database(clientDatabase);
        if (context.adminRoute().isConsole(database)) {
            log.error("cannot use the reserved \"{}\" database as an auth_dbname", database);
            return CompletableFuture.completedFuture(Outcome.refused(PoolerError.bouncerConfigError()));
        }
        if (context.database(database) == null) {
            log.error("authentication database \"{}\" is not configured", database);
            return CompletableFuture.completedFuture(Outcome.refused(PoolerError.bouncerConfigError()));
        }
        if (context.adminRoute().isDisabled(database)) {
            return CompletableFuture.completedFuture(Outcome.refused(
                    PoolerError.fatal("authentication database \"" + database + "\" is disabled")));
        }
        Pool<ServerConnection> pool = context.registry().pool(database, authQuery.user());
        return pool.acquireAsync().handle((lease, failure) -> failure == null
                ? run(lease, authQuery, clientDatabase, user)
                : CompletableFuture.completedFuture(new Outcome(null, null, failure)))
                .thenCompose(stage -> stage);
    }

    private CompletionStage<Outcome> run(Lease<ServerConnection> lease, AuthQuery authQuery, String clientDatabase,
            String user) {
        List<String[]> rows = new ArrayList<>(2);
        ServerConnection server = lease.connection();
        EncodableMessage request = authQuery.takesUserName()
                ? PoolerPrelude.before(authQuery.query(), server.parameters().majorVersion(), user)
                : PoolerPrelude.before(authQuery.query(), server.parameters().majorVersion());
        return server.request(request, rows).handle((error, failure) -> {
            if (failure != null) {
                lease.discard(failure);
                log.error("auth_query for user {} failed: {}", user, failure.toString());
                return Outcome.refused(PoolerError.serverConnCrashed());
            }
            lease.release();
            if (error != null) {
                log.error("auth_query for user {} failed: {} ({})", user, error.message(), error.sqlState());
                return Outcome.refused(PoolerError.bouncerConfigError());
            }
            // the prelude's row first
            return outcome(rows.subList(Math.min(1, rows.size()), rows.size()), clientDatabase, user);
        });
    }

    private Outcome outcome(List<String[]> rows, String clientDatabase, String user) {
        QueriedUsers queried = context.queriedUsers();
        if (rows.isEmpty()) {
            queried.forget(clientDatabase, user);
            return Outcome.UNKNOWN;
        }
        String[] row = rows.get(0);
        if (row.length != 2) {
            log.error("auth_query returned {} columns, expected 2 (user name, secret)", row.length);
            return Outcome.refused(PoolerError.bouncerConfigError());
        }
        if (rows.size() > 1) {
            log.error("auth_query returned {} rows for user {}, expected at most one: the user is refused",
                    rows.size(), user);
            queried.forget(clientDatabase, user);
            return Outcome.UNKNOWN;
        }
        try {
            // PgBouncer's "impossible password": a NULL secret is a user that exists and matches no password
            return new Outcome(queried.remember(clientDatabase, user, row[1] == null ? "" : row[1]), null, null);
        } catch (IllegalArgumentException e) {
            log.error("auth_query returned a malformed secret for user {}: {}", user, e.getMessage());
            queried.forget(clientDatabase, user);
            return Outcome.UNKNOWN;
        }
    }
}
