package io.pgmux.proxy.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultEventLoop;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each loop reads into its own buffer while nothing holds what was read into it before, and never overwrites bytes
 * still held: a read meanwhile gets a pooled buffer.
 */
class ReadBuffersTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return loop.submit(task).get(10, TimeUnit.SECONDS);
    }

    @Test
    void aReadAfterTheLastOneWasReleasedGetsTheSameBuffer() throws Exception {
        assertTrue(onLoop(() -> {
            ByteBuf first = ReadBuffers.take(2048);
            first.writeBytes("SELECT 1".getBytes(StandardCharsets.US_ASCII));
            first.release();
            ByteBuf second = ReadBuffers.take(2048);
            try {
                return second == first && second.readableBytes() == 0 && second.capacity() >= 2048;
            } finally {
                second.release();
            }
        }), "the loop's buffer was not used again, or not empty");
    }

    @Test
    void bytesStillHeldAreNeverOverwritten() throws Exception {
        onLoop(() -> {
            ByteBuf first = ReadBuffers.take(2048);
            first.writeBytes("BEGIN".getBytes(StandardCharsets.US_ASCII));
            ByteBuf held = first.retainedSlice(0, 5);
            first.release();
            ByteBuf second = ReadBuffers.take(2048);
            assertNotSame(first, second, "a held buffer was given to the next read");
            second.writeBytes("XXXXX".getBytes(StandardCharsets.US_ASCII));
            assertEquals("BEGIN", held.toString(StandardCharsets.US_ASCII));
            second.release();
            held.release();
            ByteBuf third = ReadBuffers.take(2048);
            assertSame(first, third, "the loop's buffer was not used again once released by its last holder");
            third.release();
            return null;
        });
    }

    @Test
    void holdsSaysWhichBytesLieInTheLoopsBuffer() throws Exception {
        onLoop(() -> {
            ByteBuf read = ReadBuffers.take(2048);
            read.writeBytes(new byte[100]);
            ByteBuf slice = read.retainedSlice(50, 10);
            ByteBuf pooled = ByteBufAllocator.DEFAULT.directBuffer(16);
            assertTrue(ReadBuffers.holds(read));
            assertTrue(ReadBuffers.holds(slice), "a slice of the loop's buffer");
            assertFalse(ReadBuffers.holds(pooled), "a buffer of the pool");
            slice.release();
            read.release();
            pooled.release();
            return null;
        });
    }

    @Test
    void eachLoopHasItsOwnBuffer() throws Exception {
        DefaultEventLoop other = new DefaultEventLoop();
        try {
            ByteBuf here = onLoop(() -> ReadBuffers.take(2048));
            ByteBuf there = other.submit(() -> ReadBuffers.take(2048)).get(10, TimeUnit.SECONDS);
            assertNotSame(here, there);
            assertFalse(onLoop(() -> ReadBuffers.holds(there)), "another loop's buffer counted as this one's");
            here.release();
            there.release();
        } finally {
            other.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
