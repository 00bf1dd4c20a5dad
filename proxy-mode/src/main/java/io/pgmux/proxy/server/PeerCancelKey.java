package io.pgmux.proxy.server;

import io.pgmux.proxy.protocol.BackendKeyData;

/**
 * PgBouncer 1.21+'s cancel key under peering, byte for byte, so that pgmux and PgBouncer processes can be peers: of
 * the eight bytes a client quotes (process id, then secret key), the second and third hold the peer_id of the process
 * that gave the key (low byte first), and the two low bits of the last are a TTL, set to 3 when the key is given and
 * lowered by one at each forwarding, so that a cancel sent round a loop of peers is dropped after three hops.
 */
public final class PeerCancelKey {
    private static final int TTL_MASK = 0x03;

    private PeerCancelKey() {
    }

    /** {@code key} carrying {@code peerId} and a full TTL; as it is for 0, no peering. */
    public static BackendKeyData stamped(BackendKeyData key, int peerId) {
        if (peerId == 0) {
            return key;
        }
        int processId = key.processId() & 0xFF0000FF | (peerId & 0xFF) << 16 | (peerId >> 8 & 0xFF) << 8;
        byte[] secret = key.secretKey();
        secret[secret.length - 1] |= TTL_MASK;
        return new BackendKeyData(processId, secret);
    }

    /** The peer_id {@code key} carries. */
    public static int peerId(BackendKeyData key) {
        return key.processId() >> 16 & 0xFF | (key.processId() >> 8 & 0xFF) << 8;
    }

    /** How many more times {@code key} may be forwarded. */
    public static int ttl(BackendKeyData key) {
        byte[] secret = key.secretKey();
        return secret[secret.length - 1] & TTL_MASK;
    }

    /** {@code key} as the owner gave it, its TTL full again: what the owner looks it up by. */
    public static BackendKeyData asGiven(BackendKeyData key) {
        byte[] secret = key.secretKey();
        secret[secret.length - 1] |= TTL_MASK;
        return new BackendKeyData(key.processId(), secret);
    }

    /** {@code key} with its TTL one lower, to forward. */
    public static BackendKeyData forwarded(BackendKeyData key) {
        byte[] secret = key.secretKey();
        secret[secret.length - 1]--;
        return new BackendKeyData(key.processId(), secret);
    }
}
