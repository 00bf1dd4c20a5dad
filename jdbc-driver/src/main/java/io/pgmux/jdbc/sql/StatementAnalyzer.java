package io.pgmux.jdbc.sql;

import io.pgmux.core.pool.PinReason;

/**
 * One pass over the tokens of SQL text, statement by statement, deciding what pins and what
 * controls the transaction. The rules are listed in {@link SqlClassifier}.
 *
 * <p>Statements split at {@code ;} outside parentheses and outside a {@code BEGIN ATOMIC ... END}
 * routine body (tracked the way psql does). The first tokens of a statement decide its command; the
 * rest is scanned for function calls and the few clauses that matter. When unsure, the analyzer
 * pins: a needless pin costs multiplexing, a missed one leaks session state to another client.
 */
final class StatementAnalyzer {

    /** Statements whose later tokens matter; every other statement is OTHER. */
    private enum Command {
        OTHER, SET, PREPARE, CREATE, DECLARE, DISCARD, DO, START, COMMIT, ROLLBACK, EXPLAIN
    }

    /** A DO body may itself run DO; bodies nested deeper than this are not scanned. */
    private static final int MAX_BODY_NESTING = 8;

    private static final int NO_CALL = 0;
    private static final int SET_CONFIG = 1;
    private static final int ADVISORY_LOCK = 2;
    private static final int SEQUENCE_READ = 3;
    private static final int SEQUENCE_ADVANCE = 4;

    /** States of the set_config third argument: only a TRUE literal, optionally cast, keeps it local. */
    private static final int ARG_EXPECTED = 0;
    private static final int ARG_LITERAL = 1;
    private static final int ARG_CAST = 2;
    private static final int ARG_CAST_TYPE = 3;
    private static final int ARG_OTHER = 4;

    private final SqlLexer lexer;
    /** Inside a DO body: PL/pgSQL block words start statements and transaction control is not reported. */
    private final boolean procedural;
    private final int nesting;

    private PinReason pinReason;
    /** currval() or lastval() is called somewhere in the text. */
    private boolean readsSequence;
    /** nextval() or setval() is called, or an INSERT, MERGE or COPY may call nextval() through a default. */
    private boolean advancesSequence;
    private TransactionControl lastControl = TransactionControl.NONE;
    private boolean startsTransaction;
    private boolean endsTransaction;

    private boolean atStatementStart;
    private Command command;
    private int tokenIndex;
    private int parenDepth;
    /** A PinReason decided by the statement's command; it precedes anything found later in the statement. */
    private PinReason commandReason;
    /** The first PinReason found among the statement's expressions (function calls, SELECT INTO TEMP). */
    private PinReason expressionReason;
    private TransactionControl control;
    private boolean scanCalls;
    private boolean previousWasAnd;
    private boolean previousWasInsertOrMerge;
    private boolean previousWasPgTemp;

    private boolean createHeader;
    private boolean temporary;
    private boolean createsTemporary;
    private int onCommitMatched;
    private boolean onCommitDrop;
    private boolean routineBody;
    private int beginDepth;

    private boolean declareOptions;
    private boolean previousWasWith;

    private boolean prepareTransaction;
    private boolean bodyScanned;
    private boolean previousWasLanguage;

    /** 0 none; 1 after INTO; 2 after INTO LOCAL/GLOBAL; 3 after INTO TEMP; 4 after INTO pg_temp. */
    private int intoState;

    private int pendingCall;
    private int configDepth = -1;
    private int configArgument;
    private int configArgumentState;
    private boolean configLocal;

    /** Inside a DO body: the previous token was EXECUTE. */
    private boolean afterExecute;
    /** Inside a DO body: the value of the literal that followed EXECUTE, until the command string is known whole. */
    private String executeLiteral;

    /** A literal names a session-state command that a function may run (see {@link SessionStateWords}). */
    private boolean hinted;

    /** Statements with at least one token, at the top level of the text. */
    private int statements;
    private boolean statementHasTokens;

    private StatementAnalyzer(String sql, int from, int to, boolean procedural, int nesting) {
        this.lexer = new SqlLexer(sql, from, to);
        this.procedural = procedural;
        this.nesting = nesting;
    }

    static Classification classify(String sql) {
        StatementAnalyzer analyzer = new StatementAnalyzer(sql, 0, sql.length(), false, 0);
        analyzer.run();
        return Classification.of(analyzer.pinReason, analyzer.lastControl,
                analyzer.startsTransaction, analyzer.endsTransaction, analyzer.statements > 1,
                analyzer.readsSequence && !analyzer.advancesSequence, analyzer.advancesSequence,
                analyzer.pinReason == null && (analyzer.hinted || SessionStateWords.mentioned(sql)));
    }

    private void run() {
        beginStatement();
        for (int type = lexer.next(); type != SqlLexer.EOF; type = lexer.next()) {
            if (type == SqlLexer.SYMBOL && lexer.isSymbol(';') && parenDepth == 0 && beginDepth == 0) {
                countStatement();
                endStatement();
                beginStatement();
            } else if (procedural && parenDepth == 0 && isBlockWord()) {
                endStatement();
                beginStatement();
            } else {
                statementHasTokens = true;
                token(type);
            }
        }
        countStatement();
        endStatement();
    }

    private void countStatement() {
        if (statementHasTokens) {
            statements++;
            statementHasTokens = false;
        }
    }

    /** PL/pgSQL words after which a new SQL statement may begin without a semicolon. */
    private boolean isBlockWord() {
        return lexer.isKeyword("begin") || lexer.isKeyword("declare") || lexer.isKeyword("then")
                || lexer.isKeyword("else") || lexer.isKeyword("loop") || lexer.isKeyword("exception");
    }

    private void beginStatement() {
        atStatementStart = true;
        command = Command.OTHER;
        tokenIndex = 0;
        parenDepth = 0;
        commandReason = null;
        expressionReason = null;
        control = TransactionControl.NONE;
        scanCalls = true;
        previousWasAnd = false;
        previousWasInsertOrMerge = false;
        previousWasPgTemp = false;
        createHeader = false;
        temporary = false;
        createsTemporary = false;
        onCommitMatched = 0;
        onCommitDrop = false;
        routineBody = false;
        beginDepth = 0;
        declareOptions = false;
        previousWasWith = false;
        prepareTransaction = false;
        bodyScanned = false;
        previousWasLanguage = false;
        intoState = 0;
        pendingCall = NO_CALL;
        configDepth = -1;
        afterExecute = false;
        executeLiteral = null;
    }

    private void endStatement() {
        if (atStatementStart) {
            return;
        }
        if (afterExecute) {
            expressionFound(PinReason.DYNAMIC_SQL);
        } else if (executeLiteral != null) {
            executeLiteralFound();
        }
        if (createsTemporary && !onCommitDrop && commandReason == null) {
            commandReason = PinReason.TEMPORARY_OBJECT;
        }
        if (command == Command.PREPARE && !prepareTransaction && tokenIndex >= 1 && commandReason == null) {
            commandReason = PinReason.PREPARED_STATEMENT;
        }
        if (configDepth >= 0) {
            expressionFound(PinReason.SESSION_SET);
        }
        PinReason reason = commandReason != null ? commandReason : expressionReason;
        if (pinReason == null) {
            pinReason = reason;
        }
        if (!procedural && control != TransactionControl.NONE) {
            lastControl = control;
            startsTransaction |= control.opensTransaction();
            endsTransaction |= control.closesTransaction();
        }
    }

    private void token(int type) {
        if (atStatementStart) {
            if (lexer.isSymbol('(')) {
                parenDepth++;
                return;
            }
            atStatementStart = false;
            firstToken();
        } else {
            tokenIndex++;
            commandToken(type);
        }
        expressionToken(type);
    }

    private void firstToken() {
        if (lexer.type != SqlLexer.IDENTIFIER) {
            return;
        }
        if (lexer.isKeyword("set")) {
            command = Command.SET;
        } else if (lexer.isKeyword("reset")) {
            commandReason = PinReason.SESSION_SET;
        } else if (lexer.isKeyword("listen")) {
            commandReason = PinReason.LISTEN;
        } else if (lexer.isKeyword("load")) {
            commandReason = PinReason.LOAD;
        } else if (lexer.isKeyword("prepare")) {
            command = Command.PREPARE;
        } else if (lexer.isKeyword("create")) {
            command = Command.CREATE;
            createHeader = true;
        } else if (lexer.isKeyword("declare")) {
            command = Command.DECLARE;
            declareOptions = true;
        } else if (lexer.isKeyword("discard")) {
            command = Command.DISCARD;
        } else if (lexer.isKeyword("do")) {
            command = Command.DO;
        } else if (lexer.isKeyword("explain")) {
            command = Command.EXPLAIN;

        } else if (lexer.isKeyword("drop") || lexer.isKeyword("comment")
                || lexer.isKeyword("grant") || lexer.isKeyword("revoke")) {
            scanCalls = false;
        } else if (!procedural) {
            firstTransactionToken();
        }
    }

    private void firstTransactionToken() {
        if (lexer.isKeyword("begin")) {
            control = TransactionControl.BEGIN;
        } else if (lexer.isKeyword("start")) {
            command = Command.START;
        } else if (lexer.isKeyword("commit") || lexer.isKeyword("end")) {
            command = Command.COMMIT;
            control = TransactionControl.COMMIT;
        } else if (lexer.isKeyword("rollback") || lexer.isKeyword("abort")) {
            command = Command.ROLLBACK;
            control = TransactionControl.ROLLBACK;
        } else if (lexer.isKeyword("savepoint")) {
            control = TransactionControl.SAVEPOINT;
        } else if (lexer.isKeyword("release")) {
            control = TransactionControl.RELEASE_SAVEPOINT;
        }
    }

    private void commandToken(int type) {
        switch (command) {
            case SET:
                if (tokenIndex == 1 && !(lexer.isKeyword("local") || lexer.isKeyword("transaction")
                        || lexer.isKeyword("constraints"))) {
                    commandReason = PinReason.SESSION_SET;
                }
                break;
            case PREPARE:
                if (tokenIndex == 1) {
                    prepareTransaction = lexer.isKeyword("transaction");
                } else if (tokenIndex == 2 && prepareTransaction) {
                    prepareTransaction = type == SqlLexer.STRING;
                    if (prepareTransaction) {
                        control = TransactionControl.PREPARE_TRANSACTION;
                    }
                }
                break;
            case CREATE:
                createToken();
                break;
            case DECLARE:
                declareToken();
                break;
            case DISCARD:
                if (tokenIndex == 1 && lexer.isKeyword("all")) {
                    commandReason = PinReason.SESSION_SET;
                }
                break;
            case DO:
                doToken(type);
                break;
            case EXPLAIN:
                explainToken();
                break;
            case START:
                if (tokenIndex == 1 && lexer.isKeyword("transaction")) {
                    control = TransactionControl.BEGIN;
                }
                break;
            case COMMIT:
            case ROLLBACK:
                endOfTransactionToken();
                break;
            default:
                break;
        }
    }

    private void createToken() {
        if (createHeader) {
            if (lexer.isKeyword("temp") || lexer.isKeyword("temporary")) {
                temporary = true;
            } else if (!(lexer.isKeyword("or") || lexer.isKeyword("replace") || lexer.isKeyword("global")
                    || lexer.isKeyword("local") || lexer.isKeyword("unlogged") || lexer.isKeyword("recursive"))) {
                createHeader = false;
                if (temporary) {
                    createsTemporary = true;
                } else if (lexer.isKeyword("function") || lexer.isKeyword("procedure")) {
                    routineBody = true;
                    scanCalls = false;
                } else if (lexer.isKeyword("view") || lexer.isKeyword("rule")) {
                    scanCalls = false;
                }
            }
            return;
        }
        if (parenDepth == 0) {
            onCommitToken();
            if (routineBody) {
                routineBodyToken();
            }
        }
    }

    private void onCommitToken() {
        if (onCommitMatched == 2 && lexer.isKeyword("drop")) {
            onCommitDrop = true;
        }
        if (onCommitMatched == 1 && lexer.isKeyword("commit")) {
            onCommitMatched = 2;
        } else {
            onCommitMatched = lexer.isKeyword("on") ? 1 : 0;
        }
    }

    /** psql's rule: inside CREATE FUNCTION/PROCEDURE, BEGIN ... END (and CASE ... END within) nest. */
    private void routineBodyToken() {
        if (lexer.isKeyword("begin")) {
            beginDepth++;
        } else if (lexer.isKeyword("case")) {
            if (beginDepth > 0) {
                beginDepth++;
            }
        } else if (lexer.isKeyword("end") && beginDepth > 0) {
            beginDepth--;
        }
    }

    private void declareToken() {
        if (!declareOptions || parenDepth != 0) {
            return;
        }
        if (previousWasWith && lexer.isKeyword("hold")) {
            commandReason = PinReason.HOLD_CURSOR;
        }
        previousWasWith = lexer.isKeyword("with");
        if (lexer.isKeyword("for")) {
            declareOptions = false;
        }
    }

    private void doToken(int type) {
        if (type == SqlLexer.STRING && !previousWasLanguage && !bodyScanned) {
            bodyScanned = true;
            if (nesting < MAX_BODY_NESTING) {
                String text = lexer.stringValue();
                StatementAnalyzer body = new StatementAnalyzer(text, 0, text.length(), true, nesting + 1);
                body.run();
                if (body.pinReason != null) {
                    expressionFound(body.pinReason);
                }
            }
        }
        previousWasLanguage = lexer.isKeyword("language");
    }

    /**
     * EXPLAIN ANALYZE runs the statement it explains (CREATE TABLE AS creates the table), so that statement
     * is read as if it stood alone: the options are skipped, and its first token starts it.
     */
    private void explainToken() {
        if (parenDepth > 0 || lexer.isSymbol('(') || lexer.isKeyword("analyze") || lexer.isKeyword("analyse")
                || lexer.isKeyword("verbose")) {
            return;
        }
        command = Command.OTHER;
        tokenIndex = 0;
        firstToken();
    }

    private void endOfTransactionToken() {
        if (tokenIndex == 1 && lexer.isKeyword("prepared")) {
            control = TransactionControl.NONE;
        } else if (command == Command.ROLLBACK && lexer.isKeyword("to") && control == TransactionControl.ROLLBACK) {
            control = TransactionControl.ROLLBACK_TO_SAVEPOINT;
        } else if (previousWasAnd && lexer.isKeyword("chain")) {
            if (control == TransactionControl.COMMIT) {
                control = TransactionControl.COMMIT_AND_CHAIN;
            } else if (control == TransactionControl.ROLLBACK) {
                control = TransactionControl.ROLLBACK_AND_CHAIN;
            }
        }
        previousWasAnd = lexer.isKeyword("and");
    }

    /** Checks every token, whatever the command: function calls, SELECT INTO TEMP, parentheses. */
    private void expressionToken(int type) {
        if (type == SqlLexer.STRING && !hinted) {
            hinted = SessionStateWords.commandInLiteral(lexer.text(), lexer.contentStart, lexer.contentEnd);
        }
        if (procedural) {
            dynamicSqlToken(type);
        }
        int call = pendingCall;
        pendingCall = NO_CALL;
        boolean open = lexer.isSymbol('(') || lexer.isSymbol('[');
        boolean close = lexer.isSymbol(')') || lexer.isSymbol(']');

        if (call != NO_CALL && lexer.isSymbol('(')) {
            parenDepth++;
            startCall(call);
        } else {
            if (configDepth >= 0) {
                setConfigToken(type, open, close);
            }
            if (open) {
                parenDepth++;
            } else if (close && parenDepth > 0) {
                parenDepth--;
            }
        }
        if (scanCalls) {
            pendingCall = calledFunction();
        }
        intoToken();
        if (previousWasPgTemp && lexer.isSymbol('.') && command == Command.CREATE) {
            createsTemporary = true;
        }
        previousWasPgTemp = lexer.isName("pg_temp");
        previousWasInsertOrMerge = lexer.isKeyword("insert") || lexer.isKeyword("merge");
        if (previousWasInsertOrMerge || lexer.isKeyword("copy")) {
            advancesSequence = true;
        }
    }

    private int calledFunction() {
        switch (lexer.nameLength()) {
            case 6:
                return lexer.isName("setval") ? SEQUENCE_ADVANCE : NO_CALL;
            case 7:
                if (lexer.isName("nextval")) {
                    return SEQUENCE_ADVANCE;
                }
                return lexer.isName("currval") || lexer.isName("lastval") ? SEQUENCE_READ : NO_CALL;
            case 10:
                return lexer.isName("set_config") ? SET_CONFIG : NO_CALL;
            case 16:
                return lexer.isName("pg_advisory_lock") ? ADVISORY_LOCK : NO_CALL;
            case 20:
                return lexer.isName("pg_try_advisory_lock") ? ADVISORY_LOCK : NO_CALL;
            case 23:
                return lexer.isName("pg_advisory_lock_shared") ? ADVISORY_LOCK : NO_CALL;
            case 27:
                return lexer.isName("pg_try_advisory_lock_shared") ? ADVISORY_LOCK : NO_CALL;
            default:
                return NO_CALL;
        }
    }

    private void startCall(int call) {
        if (call == SEQUENCE_READ) {
            readsSequence = true;
        } else if (call == SEQUENCE_ADVANCE) {
            advancesSequence = true;
        } else if (call == ADVISORY_LOCK) {
            expressionFound(PinReason.ADVISORY_LOCK);
        } else if (configDepth >= 0) {
            expressionFound(PinReason.SESSION_SET);
        } else {
            configDepth = parenDepth;
            configArgument = 0;
            configArgumentState = ARG_EXPECTED;
            configLocal = false;
        }
    }

    /** Follows set_config's arguments; at its closing parenthesis, anything but a TRUE third argument pins. */
    private void setConfigToken(int type, boolean open, boolean close) {
        if (parenDepth != configDepth) {
            return;
        }
        if (close) {
            boolean literal = configArgumentState == ARG_LITERAL || configArgumentState == ARG_CAST_TYPE;
            if (!(configArgument == 2 && literal && configLocal)) {
                expressionFound(PinReason.SESSION_SET);
            }
            configDepth = -1;
        } else if (lexer.isSymbol(',')) {
            configArgument++;
            configArgumentState = ARG_EXPECTED;
        } else if (configArgument == 2) {
            configArgumentState = nextArgumentState(type, open);
        }
    }

    private int nextArgumentState(int type, boolean open) {
        switch (configArgumentState) {
            case ARG_EXPECTED:
                if (lexer.isKeyword("true") || lexer.isBooleanLiteral(true)) {
                    configLocal = true;
                    return ARG_LITERAL;
                }
                return lexer.isKeyword("false") || lexer.isBooleanLiteral(false) ? ARG_LITERAL : ARG_OTHER;
            case ARG_LITERAL:
                return type == SqlLexer.CAST ? ARG_CAST : ARG_OTHER;
            case ARG_CAST:
                return !open && (type == SqlLexer.IDENTIFIER || type == SqlLexer.QUOTED_IDENTIFIER)
                        ? ARG_CAST_TYPE : ARG_OTHER;
            case ARG_CAST_TYPE:
                return lexer.isSymbol('.') ? ARG_CAST : ARG_OTHER;
            default:
                return ARG_OTHER;
        }
    }

    /**
     * PL/pgSQL's dynamic SQL (EXECUTE, FOR ... IN EXECUTE, OPEN ... FOR EXECUTE): a command string that is
     * one literal, alone or followed by INTO or USING, is read as SQL of its own; any other is built at run
     * time, so what it leaves behind cannot be read from the text and it pins.
     */
    private void dynamicSqlToken(int type) {
        if (executeLiteral != null) {
            if (lexer.isKeyword("into") || lexer.isKeyword("using")) {
                executeLiteralFound();
            } else {
                executeLiteral = null;
                expressionFound(PinReason.DYNAMIC_SQL);
            }
        } else if (afterExecute) {
            if (type == SqlLexer.STRING && !lexer.unterminated) {
                executeLiteral = lexer.stringValue();
            } else {
                expressionFound(PinReason.DYNAMIC_SQL);
            }
        }
        afterExecute = lexer.isKeyword("execute");
    }

    private void executeLiteralFound() {
        String text = executeLiteral;
        executeLiteral = null;
        if (nesting < MAX_BODY_NESTING) {
            StatementAnalyzer command = new StatementAnalyzer(text, 0, text.length(), false, nesting + 1);
            command.run();
            if (command.pinReason != null) {
                expressionFound(command.pinReason);
            }
        } else {
            expressionFound(PinReason.DYNAMIC_SQL);
        }
    }

    /** SELECT ... INTO [LOCAL | GLOBAL] TEMP[ORARY] [TABLE] name, or INTO pg_temp.name, creates a temporary table. */
    private void intoToken() {
        switch (intoState) {
            case 1:
                if (lexer.isKeyword("temp") || lexer.isKeyword("temporary")) {
                    intoState = 3;
                    return;
                }
                if (lexer.isKeyword("local") || lexer.isKeyword("global")) {
                    intoState = 2;
                    return;
                }
                if (lexer.isName("pg_temp")) {
                    intoState = 4;
                    return;
                }
                break;
            case 2:
                if (lexer.isKeyword("temp") || lexer.isKeyword("temporary")) {
                    expressionFound(PinReason.TEMPORARY_OBJECT);
                }
                break;
            case 3:
                if ((lexer.type == SqlLexer.IDENTIFIER && !lexer.isKeyword("from"))
                        || lexer.type == SqlLexer.QUOTED_IDENTIFIER) {
                    expressionFound(PinReason.TEMPORARY_OBJECT);
                }
                break;
            case 4:
                if (lexer.isSymbol('.')) {
                    expressionFound(PinReason.TEMPORARY_OBJECT);
                }
                break;
            default:
                break;
        }
        intoState = lexer.isKeyword("into") && !previousWasInsertOrMerge ? 1 : 0;
    }

    private void expressionFound(PinReason reason) {
        if (expressionReason == null) {
            expressionReason = reason;
        }
    }
}
