package io.pgmux.proxy.server;

import io.pgmux.proxy.parameters.PreludedRequest;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.SqlState;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A request of the pooler's own that runs on a server connection: what it sent, the rows and the first error that
 * came back, and its completion at ReadyForQuery. One that starts by turning the client's timeouts off
 * ({@link PreludedRequest}) runs that first statement under them: a client's {@code statement_timeout = 1} can
 * cancel it when the backend is descheduled for a millisecond. Such a request only reads or sets settings, and the
 * cancel rolled it back whole, so it is sent again, a few times, unless a client's cancel went to the backend
 * meanwhile (then the cancel is the client's answer to give). Any other request (the check and reset queries, the
 * fleet's statements, which a statement_timeout of their own bounds on purpose) is answered as the server answered.
 * Read and written on the server's loop.
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
     * {@link PreludedRequest}'s cancel (57014) that left the session idle and that no client sent (no cancel was on
     * its way to the backend when the request began, and {@code cancelNow}, the last cancel sent, is still the one
     * known then), and only {@link #TRIES} sends in all.
     */
    boolean sendAgain(ReadyForQuery.TransactionStatus status, CompletableFuture<Void> cancelNow) {
        if (error == null || !(request instanceof PreludedRequest) || error.isFatal()
                || !SqlState.QUERY_CANCELED.equals(error.sqlState()) || status != ReadyForQuery.TransactionStatus.IDLE
                || cancelPendingAtStart || cancelNow != cancelAtStart || sends >= TRIES) {
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
