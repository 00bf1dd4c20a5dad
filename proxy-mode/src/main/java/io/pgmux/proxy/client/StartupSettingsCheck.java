package io.pgmux.proxy.client;

import io.pgmux.core.pool.Lease;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.parameters.WelcomeCache;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.server.ServerConnection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A login's startup settings applied on a server of its pool before the welcome, as PostgreSQL applies them at
 * login: one that no server takes ({@code is_superuser}, {@code server_version}, an unknown name, a bad value) is
 * refused at login with PostgreSQL's own error, never welcomed and then dropped. The settings that passed are
 * remembered per pool ({@link WelcomeCache#checked}), so that the next logins with the same go on at once.
 */
final class StartupSettingsCheck {
    private StartupSettingsCheck() {
    }

    /**
     * Applies the client's settings on the lent server, which then goes back (or is closed if it failed); completes
     * with the server's error when it refused one, else null, after {@code report} took the values the server now
     * reports for what the client asked for and what the replay changed ({@code on} for a {@code true} asked for,
     * {@code ISO, MDY} for {@code ISO}), where the client or the server differs from the pool's {@code reported}.
     */
    static CompletionStage<ErrorResponse> apply(Lease<ServerConnection> lease, ClientParameters parameters,
            Map<String, String> checked, Map<String, String> reported, Map<String, String> report) {
        ServerConnection server = lease.connection();
        EncodableMessage replay = parameters.replayFor(server.parameters());
        if (replay == null) {
            parameters.checked(checked, server.parameters(), WelcomeCache.CHECKED_LIMIT);
            lease.releaseUncounted();
            return CompletableFuture.completedFuture(null);
        }
        return server.request(replay, null).handle((error, failure) -> {
            if (failure != null) {
                lease.discard(failure);
                throw new CompletionException(failure);
            }
            if (error == null) {
                parameters.checked(checked, server.parameters(), WelcomeCache.CHECKED_LIMIT);
                parameters.replayed(server.parameters());
                report.replaceAll((name, value) -> {
                    String now = server.parameters().get(name);
                    String pool = reported.get(name);
                    // what the client asked for in the server's spelling, even where that is the pool's value
                    // (DateStyle ISO is "ISO, MDY"), and what the replay changed besides
                    return now == null || now.equals(pool) && value.equals(pool) ? value : now;
                });
            }
            lease.releaseUncounted();
            return error;
        });
    }
}
