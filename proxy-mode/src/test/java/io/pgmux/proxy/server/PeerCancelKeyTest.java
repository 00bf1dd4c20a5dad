package io.pgmux.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.pgmux.proxy.protocol.BackendKeyData;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The cancel key under peering, byte for byte as PgBouncer 1.21+ lays it out, so that both can be peers. */
class PeerCancelKeyTest {
    private static final BackendKeyData RANDOM = new BackendKeyData(0x7A5B3C1D, new byte[] {9, 8, 7, 0x40});

    /** The eight bytes a client quotes in its CancelRequest: process id, then secret key. */
    private static byte[] wire(BackendKeyData key) {
        return ByteBuffer.allocate(8).putInt(key.processId()).put(key.secretKey()).array();
    }

    @Test
    void aKeyCarriesThePeerIdInItsSecondAndThirdBytesLowByteFirstAndAFullTtlInItsLastTwoBits() {
        byte[] stamped = wire(PeerCancelKey.stamped(RANDOM, 0x0102));
        assertArrayEquals(new byte[] {0x7A, 0x02, 0x01, 0x1D, 9, 8, 7, 0x43}, stamped);
    }

    @Test
    void thePeerIdIsReadBackFromTheKey() {
        assertEquals(0x0102, PeerCancelKey.peerId(PeerCancelKey.stamped(RANDOM, 0x0102)));
        assertEquals(65535, PeerCancelKey.peerId(PeerCancelKey.stamped(RANDOM, 65535)));
    }

    @Test
    void withoutPeeringTheKeyStaysAsDrawn() {
        assertSame(RANDOM, PeerCancelKey.stamped(RANDOM, 0));
    }

    @Test
    void eachForwardingLowersTheTtlAndTheOwnerLooksTheKeyUpAsGiven() {
        BackendKeyData given = PeerCancelKey.stamped(RANDOM, 7);
        BackendKeyData once = PeerCancelKey.forwarded(given);
        BackendKeyData thrice = PeerCancelKey.forwarded(PeerCancelKey.forwarded(once));
        assertEquals(3, PeerCancelKey.ttl(given));
        assertEquals(2, PeerCancelKey.ttl(once));
        assertEquals(0, PeerCancelKey.ttl(thrice));
        assertEquals(given, PeerCancelKey.asGiven(thrice));
        assertEquals(7, PeerCancelKey.peerId(thrice));
    }
}
