package io.pgmux.jdbc.sql;

import io.pgmux.core.pool.PinReason;

/**
 * What a piece of SQL text means to the pool: whether it pins the logical connection, and which
 * transaction-control statements it contains. Immutable; results that a single statement can
 * produce are shared instances, so classifying allocates no result object in the common cases.
 *
 * <p>For text with several statements, {@link #pinReason()} is the reason of the first statement
 * that pins, {@link #transactionControl()} is the last transaction-control statement, and
 * {@link #startsTransaction()} / {@link #endsTransaction()} say whether any statement opens / closes
 * a transaction block.
 */
public final class Classification {

    /** Nothing to pin, no transaction control: the classification of almost every statement. */
    public static final Classification PLAIN = new Classification(null, TransactionControl.NONE, false, false, false,
            false, false, false);

    private static final Classification[][] CANONICAL = canonical();

    private final PinReason pinReason;
    private final TransactionControl transactionControl;
    private final boolean startsTransaction;
    private final boolean endsTransaction;
    private final boolean multiStatement;
    private final boolean readsSequenceOnly;
    private final boolean mayAdvanceSequence;
    private final boolean checksAfter;
    private final ReadIntent readIntent;

    private Classification(PinReason pinReason, TransactionControl transactionControl,
                           boolean startsTransaction, boolean endsTransaction, boolean multiStatement,
                           boolean readsSequenceOnly, boolean mayAdvanceSequence, boolean checksAfter) {
        this(pinReason, transactionControl, startsTransaction, endsTransaction, multiStatement, readsSequenceOnly,
                mayAdvanceSequence, checksAfter, ReadIntent.NONE);
    }

    private Classification(PinReason pinReason, TransactionControl transactionControl,
                           boolean startsTransaction, boolean endsTransaction, boolean multiStatement,
                           boolean readsSequenceOnly, boolean mayAdvanceSequence, boolean checksAfter,
                           ReadIntent readIntent) {
        this.pinReason = pinReason;
        this.transactionControl = transactionControl;
        this.startsTransaction = startsTransaction;
        this.endsTransaction = endsTransaction;
        this.multiStatement = multiStatement;
        this.readsSequenceOnly = readsSequenceOnly;
        this.mayAdvanceSequence = mayAdvanceSequence;
        this.checksAfter = checksAfter;
        this.readIntent = readIntent;
    }

    static Classification of(PinReason pinReason, TransactionControl last, boolean startsTransaction,
                             boolean endsTransaction, boolean multiStatement, boolean readsSequenceOnly,
                             boolean mayAdvanceSequence, boolean checksAfter) {
        if (!multiStatement && !readsSequenceOnly && !mayAdvanceSequence && !checksAfter
                && last.opensTransaction() == startsTransaction && last.closesTransaction() == endsTransaction) {
            return CANONICAL[pinReason == null ? 0 : pinReason.ordinal() + 1][last.ordinal()];
        }
        return new Classification(pinReason, last, startsTransaction, endsTransaction, multiStatement,
                readsSequenceOnly, mayAdvanceSequence, checksAfter);
    }

    private static Classification[][] canonical() {
        PinReason[] reasons = PinReason.values();
        TransactionControl[] controls = TransactionControl.values();
        Classification[][] table = new Classification[reasons.length + 1][controls.length];
        for (int r = 0; r <= reasons.length; r++) {
            for (TransactionControl control : controls) {
                PinReason reason = r == 0 ? null : reasons[r - 1];
                table[r][control.ordinal()] = reason == null && control == TransactionControl.NONE
                        ? PLAIN
                        : new Classification(reason, control, control.opensTransaction(), control.closesTransaction(),
                                false, false, false, false);
            }
        }
        return table;
    }

    /**
     * Whether the text holds more than one statement (separated by top-level semicolons, not those
     * inside literals, comments, dollar-quoted bodies or BEGIN ATOMIC), so it may return several results.
     */
    public boolean isMultiStatement() {
        return multiStatement;
    }

    /**
     * The text calls {@code currval()} or {@code lastval()} and nothing that may call {@code nextval()}: the
     * value read is the session's last one, which under transaction pooling may be another client's.
     */
    public boolean readsSequenceOnly() {
        return readsSequenceOnly;
    }

    /**
     * The text calls {@code nextval()} or {@code setval()}, or runs an INSERT, MERGE or COPY (whose column
     * defaults may call {@code nextval()}): a later {@code currval()} on the same server connection reads
     * this client's value.
     */
    public boolean mayAdvanceSequence() {
        return mayAdvanceSequence;
    }

    /**
     * Nothing pins, but the text names session state somewhere the analyzer cannot follow (a literal a function
     * runs as SQL, a function's name): the server connection is checked for that state before it goes back.
     */
    public boolean checksAfter() {
        return checksAfter;
    }

    /** What the statement declares about read-only work, for read routing; {@link ReadIntent#NONE} unless asked. */
    public ReadIntent readIntent() {
        return readIntent;
    }

    /**
     * This classification for a statement that declares {@code intent}. A session-wide one does not pin: the
     * logical connection keeps it, as it keeps setReadOnly, and the server's copy is reset after the statement.
     */
    public Classification withReadIntent(ReadIntent intent) {
        boolean session = intent.sessionWide();
        return new Classification(session ? null : pinReason, transactionControl, startsTransaction, endsTransaction,
                multiStatement, readsSequenceOnly, mayAdvanceSequence, !session && checksAfter, intent);
    }

    /** Why this SQL pins its logical connection, or {@code null} when it does not. */
    public PinReason pinReason() {
        return pinReason;
    }

    /** Whether this SQL pins its logical connection. */
    public boolean pins() {
        return pinReason != null;
    }

    /** The last transaction-control statement in the text, {@link TransactionControl#NONE} if there is none. */
    public TransactionControl transactionControl() {
        return transactionControl;
    }

    /** Whether the text contains any transaction-control statement (statement pooling refuses these). */
    public boolean isTransactionControl() {
        return transactionControl != TransactionControl.NONE;
    }

    /** Some statement opens a transaction block: BEGIN, START TRANSACTION, or COMMIT/ROLLBACK AND CHAIN. */
    public boolean startsTransaction() {
        return startsTransaction;
    }

    /** Some statement closes a transaction block: COMMIT, END, ROLLBACK, ABORT (with or without AND CHAIN), PREPARE TRANSACTION. */
    public boolean endsTransaction() {
        return endsTransaction;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Classification
                && ((Classification) o).pinReason == pinReason
                && ((Classification) o).transactionControl == transactionControl
                && ((Classification) o).startsTransaction == startsTransaction
                && ((Classification) o).endsTransaction == endsTransaction
                && ((Classification) o).multiStatement == multiStatement
                && ((Classification) o).readsSequenceOnly == readsSequenceOnly
                && ((Classification) o).mayAdvanceSequence == mayAdvanceSequence
                && ((Classification) o).checksAfter == checksAfter
                && ((Classification) o).readIntent == readIntent;
    }

    @Override
    public int hashCode() {
        int h = pinReason == null ? 0 : pinReason.hashCode();
        h = 31 * h + readIntent.ordinal();
        h = 31 * h + transactionControl.hashCode();
        return 64 * h + (checksAfter ? 32 : 0) + (readsSequenceOnly ? 16 : 0) + (mayAdvanceSequence ? 8 : 0) + (multiStatement ? 4 : 0)
                + (startsTransaction ? 2 : 0) + (endsTransaction ? 1 : 0);
    }

    @Override
    public String toString() {
        return "Classification[pinReason=" + pinReason + ", transactionControl=" + transactionControl
                + ", startsTransaction=" + startsTransaction + ", endsTransaction=" + endsTransaction
                + ", multiStatement=" + multiStatement + ", readsSequenceOnly=" + readsSequenceOnly
                + ", mayAdvanceSequence=" + mayAdvanceSequence + ", checksAfter=" + checksAfter
                + (readIntent == ReadIntent.NONE ? "" : ", readIntent=" + readIntent) + "]";
    }
}
