package io.pgmux.jmh.micro;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.jmh.stub.StubConnection;
import io.pgmux.jmh.stub.StubConnector;
import io.pgmux.jmh.stub.StubDriver;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The pools the micro-benchmarks compare, configured alike: a fixed size (min = max, as
 * HikariCP-benchmark's {@code maxPoolSize} of 32), the same wait timeout, and no liveness check when a
 * connection is borrowed, so that both measure only taking a connection and giving it back.
 */
final class ComparedPools {
    /**
     * Longer than any run: pgmux tests a connection idle for longer than server_check_delay (default 30 s)
     * before lending it; HikariCP one unused for longer than {@code com.zaxxer.hikari.aliveBypassWindowMs}
     * (default 500 ms). Both are set to this.
     */
    static final Duration NO_BORROW_CHECK = Duration.ofHours(1);
    static final Duration WAIT_TIMEOUT = Duration.ofSeconds(8);
    private static final long FILL_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private ComparedPools() {
    }

    /** A pgmux registry over stub connections; its pool ("bench", "bench") is opened in full. */
    static PoolRegistry<StubConnection> pgmux(int size) {
        PoolConfig config = PoolConfig.jdbcDefaults()
                .defaultPoolSize(size)
                .minPoolSize(size)
                .queryWaitTimeout(WAIT_TIMEOUT)
                .serverCheckDelay(NO_BORROW_CHECK)
                .build();
        PoolRegistry<StubConnection> registry = PoolRegistry.<StubConnection>builder()
                .connector(new StubConnector())
                .config(config)
                .build();
        Pool<StubConnection> pool = pgmuxPool(registry);
        if (pool.getIdleConnections() != size) {
            registry.close();
            throw new IllegalStateException("pgmux opened " + pool.getIdleConnections() + " of " + size
                    + " connections");
        }
        return registry;
    }

    static Pool<StubConnection> pgmuxPool(PoolRegistry<StubConnection> registry) {
        return registry.pool("bench", "bench");
    }

    /** A HikariCP pool over {@link StubDriver} connections, returned once all of them are open. */
    static HikariDataSource hikari(int size) {
        System.setProperty("com.zaxxer.hikari.aliveBypassWindowMs", String.valueOf(NO_BORROW_CHECK.toMillis()));
        HikariConfig config = new HikariConfig();
        config.setPoolName("hikari-bench");
        config.setDriverClassName(StubDriver.class.getName());
        config.setJdbcUrl(StubDriver.URL);
        config.setUsername("bench");
        config.setMinimumIdle(size);
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(WAIT_TIMEOUT.toMillis());
        // As HikariCP-benchmark configures every pool; with no statement run, close() has nothing to roll back.
        config.setAutoCommit(false);
        HikariDataSource ds = new HikariDataSource(config);
        long deadline = System.nanoTime() + FILL_TIMEOUT_NANOS;
        while (ds.getHikariPoolMXBean().getIdleConnections() < size) {
            if (System.nanoTime() - deadline > 0) {
                ds.close();
                throw new IllegalStateException("HikariCP opened " + ds.getHikariPoolMXBean().getIdleConnections()
                        + " of " + size + " connections within 10 s");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ds.close();
                throw new IllegalStateException("interrupted while HikariCP filled its pool", e);
            }
        }
        return ds;
    }
}
