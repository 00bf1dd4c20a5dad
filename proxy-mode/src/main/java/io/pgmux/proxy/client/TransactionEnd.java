package io.pgmux.proxy.client;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.PoolException;
import io.pgmux.proxy.client.ServerLoan.State;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.ParameterStatus;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.SqlState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a client's server needs at a transaction's end before it goes back to the pool, as steps of the client's
 * {@link ServerLoan}: the read of the WAL position after a commit (read_your_writes), the check of the session state
 * the transaction may have left (pin_session_state), the read of the session settings after a SET; and what each
 * answer decides. It keeps no state: the loan's {@link State} says which step runs, and the loan's own methods move
 * it on. Static, so that a transaction's end costs no object per client and none between; runs on the client's
 * event loop.
 */
final class TransactionEnd {
    private static final Logger log = LoggerFactory.getLogger(TransactionEnd.class);

    private TransactionEnd() {
    }

    /**
     * The transaction (or statement) ended: the server goes back, once its settings are known, unless it holds
     * session state the client keeps it for.
     */
    static void start(ServerLoan loan, boolean readyHeld) {
        // from past the codec, as the relay flushes: no walk of the pipeline from its tail at each transaction
        loan.filter.flush();
        ClientReads reads = loan.reads;
        if (reads != null && reads.wantsPosition(loan.filter.takeMayHaveWritten())) {
            // read_your_writes: the WAL position after the commit, which the client's next reads must see
            loan.ask(State.READING_POSITION, reads.positionQuery(loan.server.parameters().majorVersion()), readyHeld);
            return;
        }
        positionKnown(loan, readyHeld);
    }

    private static void positionKnown(ServerLoan loan, boolean readyHeld) {
        Pinning pinning = loan.pinning;
        if (pinning.takeTouched()) {
            // one query tells what session state the transaction may have left
            loan.ask(State.CHECKING_SESSION_STATE, Pinning.checkQuery(loan.server.parameters().majorVersion()),
                    readyHeld);
            return;
        }
        if (pinning.isPinned()) {
            return;
        }
        if (loan.filter.takeSettingsChanged()) {
            readSessionSettings(loan);
            return;
        }
        loan.release();
        loan.socket.resumeReads(ServerLoan.SERVER_REASONS);
    }

    /** The client's reads now know the position, the server or not; the client is told its token. */
    static void relayPosition(ServerLoan loan, OwnQuery answer) {
        ParameterStatus token = loan.reads.positionRead(answer.succeeded() ? answer.rows : null);
        if (token != null && loan.state != State.CLOSED) {
            loan.filter.relayOwn(token);
            loan.socket.flush();
        }
    }

    static void onPosition(ServerLoan loan, OwnQuery answer) {
        if (answer.failure != null) {
            loan.drop(answer.failure);
            loan.resumeUnlinked();
            return;
        }
        if (loan.state == State.CLOSED) {
            loan.endClosed();
            return;
        }
        loan.to(State.LINKED);
        positionKnown(loan, answer.readyHeld);
        if (loan.state == State.IDLE) {
            loan.resumeUnlinked();
        } else if (loan.state == State.LINKED) {
            loan.forwardPending();
        }
    }

    /**
     * Before a server connection on which this client ran SET goes back to the pool: reads its session
     * settings, which the client keeps on every later server connection and the next client of this one has
     * reset.
     */
    static void readSessionSettings(ServerLoan loan) {
        loan.ask(State.READING_SETTINGS, loan.parameters.sessionSettingsQuery(loan.server.parameters().majorVersion()),
                false);
    }

    static void onSessionSettings(ServerLoan loan, OwnQuery answer) {
        if (answer.succeeded() && loan.parameters.captured(answer.rows, loan.server.parameters())) {
            loan.release();
        } else {
            // its settings are unknown: the connection must not serve anyone else
            loan.drop(answer.failure != null ? answer.failure : new PoolException("session settings unreadable"
                    + (answer.error != null ? ": " + answer.error.message() : "")));
        }
        loan.resumeUnlinked();
    }

    static void onSessionState(ServerLoan loan, OwnQuery answer) {
        Pinning pinning = loan.pinning;
        boolean closed = loan.state == State.CLOSED;
        if (answer.failure != null) {
            loan.drop(answer.failure);
            if (!closed) {
                loan.client.fatal(PoolerError.serverConnCrashed());
            }
            return;
        }
        if (answer.error != null) {
            // what the session holds is unknown: the connection must not serve anyone else
            log.warn("client {} session state unreadable, server connection closed: {}",
                    loan.socket.remoteAddress(), answer.error.message());
            pinning.hold(0);
            loan.drop(new PoolException("session state unreadable: " + answer.error.message()));
            if (answer.readyHeld && !closed) {
                loan.filter.relayOwn(ReadyForQuery.IDLE);
                loan.socket.flush();
            }
            loan.resumeUnlinked();
            return;
        }
        int found = pinning.found(answer.rows);
        if (closed) {
            pinning.hold(found);
            loan.endClosed();
            return;
        }
        if (found != 0 && pinning.refuses()) {
            String refusal = Pinning.refusal(found, loan.poolMode == PoolMode.STATEMENT ? "statement" : "transaction");
            loan.filter.relayOwn(ErrorResponse.error(SqlState.FEATURE_NOT_SUPPORTED, refusal), ReadyForQuery.IDLE);
            loan.socket.flush();
            // closing the server connection ends the state with the session
            loan.drop(new PoolException(refusal));
            loan.resumeUnlinked();
            return;
        }
        if (answer.readyHeld) {
            loan.filter.relayOwn(ReadyForQuery.IDLE);
            loan.socket.flush();
        }
        pinning.hold(found);
        if (pinning.isPinned()) {
            loan.to(State.LINKED);
            loan.forwardPending();
            return;
        }
        if (loan.filter.takeSettingsChanged()) {
            readSessionSettings(loan);
            return;
        }
        loan.release();
        loan.resumeUnlinked();
    }
}
