package io.pgmux.proxy.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PoolerErrorTest {

    @Test
    void poolerErrorsAreFatalProtocolViolationsWithPgBouncersTexts() {
        List<ErrorResponse> errors = List.of(PoolerError.maxClientConn(), PoolerError.queryWaitTimeout(),
                PoolerError.noSuchDatabase("shop"), PoolerError.passwordAuthenticationFailed(),
                PoolerError.saslAuthenticationFailed(), PoolerError.noSuchUser(),
                PoolerError.transactionBlocksNotAllowed(), PoolerError.serverConnCrashed(),
                PoolerError.poolerShuttingDown(), PoolerError.clientIdleTimeout(), PoolerError.clientLoginTimeout(),
                PoolerError.idleTransactionTimeout());
        List<String> texts = List.of("no more connections allowed (max_client_conn)", "query_wait_timeout",
                "no such database: shop", "password authentication failed", "SASL authentication failed",
                "no such user", "transaction blocks not allowed in statement pooling mode", "server conn crashed?",
                "pooler is shutting down", "client_idle_timeout", "client_login_timeout", "idle transaction timeout");
        for (int i = 0; i < errors.size(); i++) {
            ErrorResponse error = errors.get(i);
            assertEquals(texts.get(i), error.message());
            assertEquals("FATAL", error.severity());
            assertEquals("08P01", error.sqlState());
        }
    }

    @Test
    void preparedStatementErrorsMimicPostgresNonFatalErrors() {
        ErrorResponse exists = PoolerError.preparedStatementAlreadyExists("s1");
        assertEquals("ERROR", exists.severity());
        assertFalse(exists.isFatal());
        assertEquals("42P05", exists.sqlState());
        assertEquals("prepared statement \"s1\" already exists", exists.message());
        ErrorResponse missing = PoolerError.preparedStatementDoesNotExist("s2");
        assertEquals("ERROR", missing.severity());
        assertEquals("26000", missing.sqlState());
        assertEquals("prepared statement \"s2\" does not exist", missing.message());
    }

    @Test
    void serverLoginErrorsCarryTheReason() {
        assertEquals("server login failed: wrong password type",
                PoolerError.serverLoginFailed("wrong password type").message());
        assertTrue(PoolerError.serverLoginRetry("password authentication failed for user \"a\"").message()
                .endsWith("(server_login_retry)"));
    }
}
