package io.pgmux.proxy.transport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class ReadPausesTest {

    @Test
    void aSocketReadsAgainOnlyOnceEveryReasonToPauseIsCleared() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ReadPauses.pause(channel, ReadPauses.SUSPENDED);
        ReadPauses.pause(channel, ReadPauses.WAITING_FOR_SERVER);
        ReadPauses.resume(channel, ReadPauses.WAITING_FOR_SERVER);
        assertFalse(channel.config().isAutoRead(), "SUSPEND's pause outlives the end of the wait for a server");
        ReadPauses.resume(channel, ReadPauses.SUSPENDED);
        assertTrue(channel.config().isAutoRead());
        channel.finishAndReleaseAll();
    }

    @Test
    void clearingAReasonThatWasNeverSetResumesNothing() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ReadPauses.pause(channel, ReadPauses.PEER_NOT_WRITABLE);
        ReadPauses.resume(channel, ReadPauses.LOGIN);
        assertFalse(channel.config().isAutoRead());
        channel.finishAndReleaseAll();
    }
}
