package io.pgmux.jmh.micro;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.pool.ServerConnector;
import io.pgmux.core.pool.ServerHandle;
import io.pgmux.jmh.stub.StubConnection;
import io.pgmux.jmh.stub.StubConnector;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

/**
 * Bytes the core engine allocates for one client that has to wait for a server, as the proxy's clients wait:
 * a pool of one connection, held; a client asks for a connection with the event loop's affinity and waits; the
 * holder releases, the pool hands the connection to the waiter, whose callback takes it; repeat. One thread does
 * it all, so the thread's allocation counter ({@code com.sun.management.ThreadMXBean}) over many cycles, after a
 * warm-up that lets the JIT compile the path, divided by the cycles, is what one wait costs.
 *
 * <pre>
 * java -cp benchmarks.jar io.pgmux.jmh.micro.WaitAllocation [cycles]
 * </pre>
 *
 * Prints bytes per wait for each way to wait: {@code stage}, {@link Pool#acquireAsync(Object)} with a
 * {@code whenComplete} action capturing the client, as the proxy's clients waited before; {@code callback},
 * {@link Pool#acquireAsync(Object, java.util.function.BiConsumer)} with the client's own callback, as they wait now.
 */
public final class WaitAllocation {
    /** The event loop the proxy's clients and servers share, as an affinity. */
    private static final Object LOOP = new Object();

    private final Pool<StubConnection> pool;
    /** The client's one callback, made once as the proxy's clients make theirs. */
    private final BiConsumer<Lease<StubConnection>, Throwable> whenServed = this::served;
    private Lease<StubConnection> held;

    private WaitAllocation(Pool<StubConnection> pool) {
        this.pool = pool;
    }

    public static void main(String[] args) {
        long cycles = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
        PoolRegistry<StubConnection> registry = PoolRegistry.<StubConnection>builder()
                .connector(new OnOneLoop())
                .config(PoolConfig.jdbcDefaults().defaultPoolSize(1).minPoolSize(1)
                        .queryWaitTimeout(ComparedPools.WAIT_TIMEOUT).serverCheckDelay(ComparedPools.NO_BORROW_CHECK)
                        .build())
                .build();
        try {
            WaitAllocation client = new WaitAllocation(ComparedPools.pgmuxPool(registry));
            client.held = client.pool.tryAcquire(LOOP);
            if (client.held == null) {
                throw new IllegalStateException("the pool opened no connection");
            }
            for (String way : new String[] {"stage", "callback"}) {
                client.run(way, cycles / 4);
                long before = allocatedBytes();
                client.run(way, cycles);
                System.out.printf("%-8s %7.1f B per wait%n", way, (allocatedBytes() - before) / (double) cycles);
            }
        } finally {
            registry.close();
        }
    }

    private void run(String way, long cycles) {
        boolean stage = way.equals("stage");
        for (long i = 0; i < cycles; i++) {
            if (stage) {
                CompletionStage<Lease<StubConnection>> waiting = pool.acquireAsync(LOOP);
                waiting.whenComplete((lease, failure) -> served(lease, failure));
            } else {
                pool.acquireAsync(LOOP, whenServed);
            }
            Lease<StubConnection> releasing = held;
            held = null;
            releasing.release();
            if (held == null) {
                throw new IllegalStateException("the release did not serve the waiting client");
            }
        }
    }

    private void served(Lease<StubConnection> lease, Throwable failure) {
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
        held = lease;
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /** Stub connections, every one on the same event loop. */
    private static final class OnOneLoop implements ServerConnector<StubConnection> {
        private final StubConnector stub = new StubConnector();

        @Override
        public CompletionStage<StubConnection> open(ServerHandle handle) {
            return stub.open(handle);
        }

        @Override
        public CompletionStage<Boolean> test(StubConnection server, String checkQuery) {
            return stub.test(server, checkQuery);
        }

        @Override
        public CompletionStage<Void> reset(StubConnection server, String resetQuery) {
            return stub.reset(server, resetQuery);
        }

        @Override
        public void close(StubConnection server) {
            stub.close(server);
        }

        @Override
        public Object affinity(StubConnection server) {
            return LOOP;
        }
    }
}
