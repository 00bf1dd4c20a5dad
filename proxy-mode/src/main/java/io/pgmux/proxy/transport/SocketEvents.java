package io.pgmux.proxy.transport;

/**
 * What a socket outside any pipeline ({@link EpollSocket}) tells its connection besides the messages
 * its codec frames: the events a channel's handler gets as channelReadComplete, channelWritabilityChanged,
 * exceptionCaught and channelInactive. Each comes on the socket's event loop.
 */
public interface SocketEvents {
    /** A batch of reads was framed and handed on. */
    void readEnded();

    /** The socket's writability changed ({@link ConnectionSocket#isWritable}). */
    void writabilityChanged();

    /** Reading or writing failed; the connection closes the socket. */
    void failed(Throwable cause);

    /** The socket closed, by either side; once, after everything before it. */
    void closed();
}
