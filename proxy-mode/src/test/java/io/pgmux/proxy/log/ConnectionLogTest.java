package io.pgmux.proxy.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** PgBouncer's prefix of a connection's log lines. */
class ConnectionLogTest {

    @Test
    void aConnectionsPtrIsItsIdentityHashInEightZeroPaddedHexDigits() {
        for (int i = 0; i < 10_000; i++) {
            Object connection = new Object();
            assertEquals(String.format("0x%08x", System.identityHashCode(connection)), ConnectionLog.ptr(connection));
        }
    }
}
