package io.pgmux.proxy.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator.ExtendedHandle;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The receive-buffer sizes a socket's reads get, from one small handle per socket. */
class ReceiveSizesTest {
    private static final int MINIMUM = 2048;
    private static final int MAXIMUM = 65536;

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final ChannelConfig config = channel.config();
    private final ExtendedHandle handle = (ExtendedHandle) new ReceiveSizes(MINIMUM, MAXIMUM).newHandle();

    @AfterEach
    void close() {
        channel.close();
    }

    /** One read loop of reads of these sizes, each into a buffer of the size guessed; true if it read them all. */
    private boolean loop(ExtendedHandle handle, int... reads) {
        handle.reset(config);
        for (int i = 0; i < reads.length; i++) {
            int size = handle.guess();
            handle.attemptedBytesRead(size);
            handle.lastBytesRead(Math.min(reads[i], size));
            if (handle.lastBytesRead() <= 0) {
                break;
            }
            handle.incMessagesRead(1);
            if (!handle.continueReading()) {
                handle.readComplete();
                return i == reads.length - 1;
            }
        }
        handle.readComplete();
        return true;
    }

    @Test
    void aSocketsFirstReadGetsTheMinimum() {
        assertEquals(MINIMUM, handle.guess());
    }

    @Test
    void aReadThatFillsItsBufferMakesTheNextFourSizesLarger() {
        loop(handle, MINIMUM);
        assertEquals(MINIMUM << 4, handle.guess());
    }

    @Test
    void twoSmallLoopsInARowMakeTheNextReadOneSizeSmaller() {
        loop(handle, MAXIMUM, MAXIMUM, MAXIMUM);
        int grown = handle.guess();
        loop(handle, 100);
        assertEquals(grown, handle.guess(), "one small loop");
        loop(handle, 100);
        assertEquals(grown / 2, handle.guess(), "two in a row");
    }

    @Test
    void aLoopBetweenTwoSmallOnesKeepsTheSize() {
        loop(handle, MAXIMUM, MAXIMUM, MAXIMUM);
        int grown = handle.guess();
        loop(handle, 100);
        loop(handle, grown);
        loop(handle, 100);
        assertEquals(grown, handle.guess());
    }

    @Test
    void sizesStayBetweenTheMinimumAndTheMaximum() {
        for (int i = 0; i < 10; i++) {
            loop(handle, MAXIMUM);
        }
        assertEquals(MAXIMUM, handle.guess());
        for (int i = 0; i < 40; i++) {
            loop(handle, 1);
        }
        assertEquals(MINIMUM, handle.guess());
    }

    /** Sockets with a codec run with autoRead off and ask for each read: a loop reads once. */
    @Test
    void withAutoReadOffALoopReadsOnce() {
        config.setAutoRead(false);
        assertFalse(loop(handle, MINIMUM, MINIMUM));
    }

    @Test
    void withAutoReadOnALoopGoesOnWhileReadsFillTheirBuffersUpToSixteen() {
        handle.reset(config);
        for (int i = 0; i < 16; i++) {
            handle.attemptedBytesRead(handle.guess());
            handle.lastBytesRead(handle.guess());
            handle.incMessagesRead(1);
            assertEquals(i < 15, handle.continueReading(), "after read " + (i + 1));
        }
        assertFalse(loop(handle, MINIMUM, 10, 10), "a read that did not fill its buffer ends the loop");
    }

    @Test
    void sizesThatAreNotPowersOfTwoAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ReceiveSizes(3000, MAXIMUM));
        assertThrows(IllegalArgumentException.class, () -> new ReceiveSizes(512, MAXIMUM));
        assertThrows(IllegalArgumentException.class, () -> new ReceiveSizes(MAXIMUM, MINIMUM));
    }

    /** The rule is Netty's adaptive sizing: the same guesses and the same decisions to read on, loop after loop. */
    @Test
    void guessesAndDecidesAsNettysAdaptiveSizing() {
        ExtendedHandle netty = (ExtendedHandle) new AdaptiveRecvByteBufAllocator(MINIMUM, MINIMUM, MAXIMUM)
                .maxMessagesPerRead(16).newHandle();
        SplittableRandom random = new SplittableRandom(22);
        for (int loop = 0; loop < 20_000; loop++) {
            config.setAutoRead(random.nextInt(4) != 0);
            handle.reset(config);
            netty.reset(config);
            for (int read = 0; ; read++) {
                int size = handle.guess();
                assertEquals(netty.guess(), size, "guess, loop " + loop + " read " + read);
                int bytes = switch (random.nextInt(4)) {
                    case 0 -> size;
                    case 1 -> random.nextInt(1, size + 1);
                    case 2 -> random.nextInt(1, 200);
                    default -> random.nextInt(10) == 0 ? -1 : random.nextInt(0, 3000);
                };
                bytes = Math.min(bytes, size);
                for (ExtendedHandle h : new ExtendedHandle[] {handle, netty}) {
                    h.attemptedBytesRead(size);
                    h.lastBytesRead(bytes);
                }
                if (bytes <= 0) {
                    break;
                }
                handle.incMessagesRead(1);
                netty.incMessagesRead(1);
                boolean onward = handle.continueReading();
                assertEquals(netty.continueReading(), onward, "read on, loop " + loop + " read " + read);
                if (!onward) {
                    break;
                }
            }
            handle.readComplete();
            netty.readComplete();
        }
        assertTrue(handle.guess() >= MINIMUM);
    }
}
