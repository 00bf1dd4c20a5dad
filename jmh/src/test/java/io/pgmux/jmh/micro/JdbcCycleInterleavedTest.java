package io.pgmux.jmh.micro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The interleaved comparison runs both pools' cycles, reports both, and leaves both pools full. */
class JdbcCycleInterleavedTest {

    @Test
    void aComparisonRunsBothPoolsCyclesAndGivesEveryConnectionBack() throws Exception {
        JdbcPool pgmux = JdbcCycleBench.pgmux(PoolMode.SESSION, 4);
        HikariDataSource hikari = JdbcCycleBench.hikari(4);
        try {
            JdbcCycleInterleaved.Result result = JdbcCycleInterleaved.compare(JdbcCycleInterleaved.Cycle.STATEMENT,
                    pgmux::getConnection, hikari::getConnection, 4, TimeUnit.MILLISECONDS.toNanos(1));
            assertTrue(result.median() > 0, result.toString());
            assertTrue(result.lowerQuartile() <= result.median() && result.median() <= result.upperQuartile());
            assertTrue(result.pgmuxNanosPerOp() > 0 && result.hikariNanosPerOp() > 0, result.toString());
            assertEquals(4, pgmux.pool().getIdleConnections());
            assertEquals(4, hikari.getHikariPoolMXBean().getIdleConnections());
        } finally {
            pgmux.close();
            hikari.close();
        }
    }
}
