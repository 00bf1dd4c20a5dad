package io.pgmux.proxy.server;

import io.pgmux.proxy.protocol.BackendMessage;

/** The client a server connection is linked to: it receives what the server sends, on the server's loop. */
public interface ServerLink {

    /**
     * A message for the client; ownership of its content moves to the link. The holder is the decoder's, valid during
     * this call: a link that uses the message later keeps {@link BackendMessage#keep()}.
     */
    void onServerMessage(BackendMessage message);

    /** Called once the server's receive buffer has been drained, to flush what was relayed. */
    void onServerReadComplete();

    /**
     * {@code server}, the connection this link was linked to, closed or failed while linked; the link may have given
     * it back meanwhile, on a loop of its own, and holds another or none by the time it hears of it.
     */
    void onServerClosed(ServerConnection server, Throwable cause);

    /** The server's socket became writable or unwritable (backpressure towards the client). */
    void onServerWritabilityChanged(boolean writable);
}
