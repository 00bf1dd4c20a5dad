package io.pgmux.jdbc.sql;

/**
 * The transaction-control statements of PostgreSQL, as far as they change whether the session is
 * inside a transaction block.
 *
 * <p>{@code COMMIT PREPARED} and {@code ROLLBACK PREPARED} are not listed: they finish a transaction
 * that has already left its session, cannot run inside a transaction block and leave this
 * session's transaction state alone, so they classify as ordinary statements.
 */
public enum TransactionControl {
    /** Not a transaction-control statement. */
    NONE(false, false),
    /** {@code BEGIN} or {@code START TRANSACTION}, with any transaction modes. */
    BEGIN(true, false),
    /** {@code COMMIT} or {@code END}. */
    COMMIT(false, true),
    /** {@code ROLLBACK} or {@code ABORT}. */
    ROLLBACK(false, true),
    /** {@code COMMIT AND CHAIN} (or {@code END AND CHAIN}): ends a transaction and opens the next at once. */
    COMMIT_AND_CHAIN(true, true),
    /** {@code ROLLBACK AND CHAIN} (or {@code ABORT AND CHAIN}). */
    ROLLBACK_AND_CHAIN(true, true),
    /** {@code PREPARE TRANSACTION 'gid'}: the transaction leaves the session, which is then idle. */
    PREPARE_TRANSACTION(false, true),
    /** {@code SAVEPOINT name}. */
    SAVEPOINT(false, false),
    /** {@code RELEASE [SAVEPOINT] name}. */
    RELEASE_SAVEPOINT(false, false),
    /** {@code ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name}: the transaction stays open. */
    ROLLBACK_TO_SAVEPOINT(false, false);

    private final boolean opens;
    private final boolean closes;

    TransactionControl(boolean opens, boolean closes) {
        this.opens = opens;
        this.closes = closes;
    }

    /** Leaves the session inside a transaction block that this statement opened. */
    public boolean opensTransaction() {
        return opens;
    }

    /** Ends the transaction block the session was in. */
    public boolean closesTransaction() {
        return closes;
    }
}
