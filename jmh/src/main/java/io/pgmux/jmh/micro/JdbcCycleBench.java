package io.pgmux.jmh.micro;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.jdbc.pool.JdbcPoolSettings;
import io.pgmux.jmh.stub.StubPgDriver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * pgmux's JDBC layer (logical connections over the engine) against HikariCP, both over the same stub
 * pgjdbc connections ({@link StubPgDriver}), in the shapes of HikariCP-benchmark: {@code connection}
 * is ConnectionBench's getConnection + close, {@code statement} adds a prepareStatement + execute +
 * close of the statement inside it, as StatementBench does on a held connection. A pool of 32 shared by
 * every benchmark thread (choose them with {@code -t}); autocommit off, as HikariCP-benchmark sets it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class JdbcCycleBench {
    static final String SQL = "SELECT 1";

    @Param({"pgmux-session", "pgmux-transaction", "hikari"})
    public String pool;

    @Param("32")
    public int poolSize;

    private JdbcPool pgmux;
    private HikariDataSource hikari;
    private ConnectionSource source;

    /** getConnection() of whichever pool is measured, without a branch on the hot path. */
    @FunctionalInterface
    private interface ConnectionSource {
        Connection get() throws SQLException;
    }

    @Setup
    public void start() throws Exception {
        switch (pool) {
            case "pgmux-session":
                pgmux = pgmux(PoolMode.SESSION, poolSize);
                source = pgmux::getConnection;
                break;
            case "pgmux-transaction":
                pgmux = pgmux(PoolMode.TRANSACTION, poolSize);
                source = pgmux::getConnection;
                break;
            case "hikari":
                hikari = hikari(poolSize);
                source = hikari::getConnection;
                break;
            default:
                throw new IllegalArgumentException("unknown pool " + pool);
        }
    }

    @TearDown
    public void stop() {
        if (pgmux != null) {
            pgmux.close();
        }
        if (hikari != null) {
            hikari.close();
        }
    }

    @Benchmark
    public Object connection() throws SQLException {
        Connection c = source.get();
        c.close();
        return c;
    }

    @Benchmark
    public boolean statement() throws SQLException {
        try (Connection c = source.get(); PreparedStatement ps = c.prepareStatement(SQL)) {
            return ps.execute();
        }
    }

    static JdbcPool pgmux(PoolMode mode, int size) throws Exception {
        PoolConfig config = PoolConfig.jdbcDefaults()
                .poolMode(mode)
                .defaultPoolSize(size)
                .minPoolSize(size)
                .queryWaitTimeout(ComparedPools.WAIT_TIMEOUT)
                .serverCheckDelay(ComparedPools.NO_BORROW_CHECK)
                .build();
        JdbcPoolSettings settings = JdbcPoolSettings.builder()
                .targetUrl(StubPgDriver.URL)
                .poolKey("bench", "bench")
                .poolConfig(config)
                .autoCommit(false)
                .build();
        JdbcPool p = new JdbcPool(settings, new StubPgDriver());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (p.pool().getIdleConnections() < size) {
            if (System.nanoTime() - deadline > 0) {
                p.close();
                throw new IllegalStateException("pgmux opened " + p.pool().getIdleConnections() + " of " + size);
            }
            Thread.sleep(10);
        }
        return p;
    }

    static HikariDataSource hikari(int size) throws InterruptedException {
        System.setProperty("com.zaxxer.hikari.aliveBypassWindowMs",
                String.valueOf(ComparedPools.NO_BORROW_CHECK.toMillis()));
        HikariConfig config = new HikariConfig();
        config.setPoolName("hikari-bench");
        config.setDriverClassName(StubPgDriver.class.getName());
        config.setJdbcUrl(StubPgDriver.URL);
        config.setUsername("bench");
        config.setMinimumIdle(size);
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(ComparedPools.WAIT_TIMEOUT.toMillis());
        config.setAutoCommit(false);
        HikariDataSource ds = new HikariDataSource(config);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ds.getHikariPoolMXBean().getIdleConnections() < size) {
            if (System.nanoTime() - deadline > 0) {
                ds.close();
                throw new IllegalStateException("HikariCP opened " + ds.getHikariPoolMXBean().getIdleConnections()
                        + " of " + size);
            }
            Thread.sleep(10);
        }
        return ds;
    }
}
