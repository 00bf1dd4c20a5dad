package io.pgmux.proxy.server;

import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.SqlState;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A request of the pooler's own that runs on a server connection: what it sent, the rows and the first error that
 * came back, and its completion at ReadyForQuery. Every such request starts with the client's timeouts turned off
 * ({@code PoolerPrelude}), but the statement that turns them off runs under them: a client's
 * {@code statement_timeout = 1} can cancel it when the backend is descheduled for a millisecond. Such a cancel
 * rolled the request back whole, so the request is sent again, a few times, unless a client's cancel went to the
 * backend meanwhile (then the cancel is the client's answer to give). Read and written on the server's loop.
 */
final class OwnRequest {
    /** Sends of a request whose tries a statement timeout cancelled, the first included. */
    static final int TRIES = 4;

    final CompletableFuture<ErrorResponse> done;
    final EncodableMessage request;
    private final List<String[]> rows;
    /** The last cancel sent to the backend when the request began: another one since means a client's cancel. */
    private final CompletableFuture<Void> cancelAtStart;
    /** That cancel could still reach the backend: a 57014 may be its answer. */
    private final boolean cancelPendingAtStart;
    private ErrorResponse error;
    private int sends = 1;

    OwnRequest(CompletableFuture<ErrorResponse> done, EncodableMessage request, List<String[]> rows,
            CompletableFuture<Void> cancelAtStart) {
        this.done = done;
        this.request = request;
        this.rows = rows;
        this.cancelAtStart = cancelAtStart;
        this.cancelPendingAtStart = cancelAtStart != null && !cancelAtStart.isDone();
    }

    void onError(ErrorResponse response) {
        if (error == null) {
            error = response;
        }
    }

    void onRow(String[] columns) {
        if (rows != null) {
            rows.add(columns);
        }
    }

    /** The first error of this send, or null. */
    ErrorResponse error() {
        return error;
    }

    /**
     * At ReadyForQuery: whether to send the request again, having forgotten what this send returned. Only a
     * cancel (57014) that left the session idle and that no client sent (no cancel was on its way to the backend
     * when the request began, and {@code cancelNow}, the last cancel sent, is still the one known then), and only
     * {@link #TRIES} sends in all.
     */
    boolean sendAgain(ReadyForQuery.TransactionStatus status, CompletableFuture<Void> cancelNow) {
        if (error == null || !SqlState.QUERY_CANCELED.equals(error.sqlState()) || error.isFatal()
                || status != ReadyForQuery.TransactionStatus.IDLE || cancelPendingAtStart || cancelNow != cancelAtStart
                || sends >= TRIES) {
            return false;
        }
        sends++;
        error = null;
        if (rows != null) {
            rows.clear();
        }
        return true;
    }
}
