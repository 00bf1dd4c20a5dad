package io.pgmux.proxy.client;

import io.pgmux.proxy.client.ServerLoan.State;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.server.ServerConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * A query of the pooler's own on the server a client's loan holds, run as one step of the loan (the replay of the
 * client's settings, the read of its session settings, of the session state a transaction may have left, of the WAL
 * position after its commit): sent, its rows collected off the relay, and its answer handed to the loan on the
 * client's event loop, where the loan takes its next step. The one object is both the server's completion and the
 * task that crosses to the client's loop.
 */
final class OwnQuery implements BiConsumer<ErrorResponse, Throwable>, Runnable {
    /** The loan's step this query runs in. */
    final State step;
    /** The transaction's last ReadyForQuery waits for this answer (pin_session_state = error). */
    final boolean readyHeld;
    /** The rows returned, each column as text; null for the replay, whose rows nobody reads. */
    final List<String[]> rows;
    private final ServerLoan loan;
    /** The error the server answered with, or null; written on the server's loop, read on the client's. */
    ErrorResponse error;
    /** Why no answer came (the server went away), or null. */
    Throwable failure;

    private OwnQuery(ServerLoan loan, State step, boolean readyHeld) {
        this.loan = loan;
        this.step = step;
        this.readyHeld = readyHeld;
        this.rows = step == State.REPLAYING ? null : new ArrayList<>();
    }

    /** Sends {@code request} on {@code server}; its answer comes to {@link ServerLoan#answered}. */
    static void send(ServerLoan loan, ServerConnection server, State step, EncodableMessage request,
            boolean readyHeld) {
        OwnQuery query = new OwnQuery(loan, step, readyHeld);
        server.request(request, query.rows).whenComplete(query);
    }

    /** The server's answer, on the server's loop. */
    @Override
    public void accept(ErrorResponse error, Throwable failure) {
        this.error = error;
        this.failure = failure;
        loan.socket.eventLoop().execute(this);
    }

    /** On the client's loop. */
    @Override
    public void run() {
        loan.answered(this);
    }

    /** The server answered without an error: {@link #rows} are what was asked. */
    boolean succeeded() {
        return failure == null && error == null;
    }
}
