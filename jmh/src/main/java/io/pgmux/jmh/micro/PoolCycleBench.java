package io.pgmux.jmh.micro;

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
 * Borrow-and-return cycles per millisecond of the core engine against HikariCP, in the shape of
 * HikariCP-benchmark's {@code ConnectionBench.cycleCnnection}: connections that do nothing, a pool of 32
 * shared by every benchmark thread (choose them with {@code -t}). No pgmux JDBC layer is involved: the
 * engine hands out the stub connection itself, where HikariCP wraps it in its proxy connection.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class PoolCycleBench {

    @Param({PgmuxCycle.NAME, PgmuxAsyncCycle.NAME, HikariCycle.NAME})
    public String pool;

    @Param("32")
    public int poolSize;

    private PoolCycle cycle;

    @Setup
    public void start() {
        cycle = PoolCycle.start(pool, poolSize);
    }

    @TearDown
    public void stop() {
        cycle.close();
    }

    @Benchmark
    public Object cycle() throws Exception {
        return cycle.borrowAndReturn();
    }
}
