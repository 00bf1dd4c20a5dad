package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What a client library over libpq must also be able to do through the proxy: cancel a query, run COPY. */
abstract class LibpqClientTest extends RealClientTest {
    LibpqClientTest(TestDatabase db, ClientScript script) {
        super(db, script);
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void cancelStopsPgSleepWith57014(PoolMode mode) {
        assertEquals("sqlstate=57014 after=1", facts(mode, "cancel"));
    }

    /** In and out, a COPY the client aborts (CopyFail), and one the server refuses for bad data. */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void copyInAndOut(PoolMode mode) {
        assertEquals("copied_in=5000 copied_out=5000 bad_data=22P02 count=5000", facts(mode, "copy"));
    }
}
