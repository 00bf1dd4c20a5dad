package io.pgmux.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.pgmux.proxy.transport.BlockingWork;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;

/** The server TLS context is built once, on the proxy's executor for blocking work. */
class ServerTlsContextTest {
    private static final BlockingWork BLOCKING_WORK = new BlockingWork();

    private static SslContext newContext() {
        try {
            return SslContextBuilder.forClient().build();
        } catch (SSLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void loginsThatNeedItAtOnceShareOneContextBuiltOnce() throws Exception {
        AtomicInteger builds = new AtomicInteger();
        ServerTlsContext tls = new ServerTlsContext(() -> {
            builds.incrementAndGet();
            return newContext();
        }, BLOCKING_WORK);
        int logins = 4;
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<CompletableFuture<SslContext>>> asked = new ArrayList<>();
        for (int i = 0; i < logins; i++) {
            asked.add(CompletableFuture.supplyAsync(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return tls.get();
            }));
        }
        start.countDown();
        SslContext first = asked.get(0).get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        for (CompletableFuture<CompletableFuture<SslContext>> login : asked) {
            assertSame(first, login.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS));
        }
        assertSame(first, tls.get().getNow(null), "once built, a login finds it at once");
        assertEquals(1, builds.get());
    }

    @Test
    void theBuildRunsOffTheThreadOfTheLoginThatNeedsIt() throws Exception {
        AtomicReference<Thread> builder = new AtomicReference<>();
        ServerTlsContext tls = new ServerTlsContext(() -> {
            builder.set(Thread.currentThread());
            return newContext();
        }, BLOCKING_WORK);
        tls.get().get(10, TimeUnit.SECONDS);
        assertNotSame(Thread.currentThread(), builder.get());
        assertTrue(builder.get().getName().startsWith("pgmux-blocking-"), builder.get().getName());
    }

    @Test
    void aFailedBuildFailsTheLoginsThatNeedIt() {
        ServerTlsContext tls = new ServerTlsContext(() -> {
            throw new IllegalArgumentException("cannot use the server_tls_* settings: no such protocol");
        }, BLOCKING_WORK);
        ExecutionException e = assertThrows(ExecutionException.class, () -> tls.get().get(10, TimeUnit.SECONDS));
        assertEquals("cannot use the server_tls_* settings: no such protocol", e.getCause().getMessage());
    }
}
