package io.pgmux.proxy.parameters;

import io.pgmux.proxy.protocol.EncodableMessage;

/**
 * A request of the pooler's own that starts with the {@link PoolerPrelude} and only reads or sets settings (the
 * replay of a client's settings, the read of its session, auth_query, the read of a WAL position): one a cancel cut
 * is rolled back whole with its implicit transaction, and may be sent again.
 */
@FunctionalInterface
public interface PreludedRequest extends EncodableMessage {
}
