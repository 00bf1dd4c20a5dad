package io.pgmux.proxy.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.pgmux.proxy.protocol.EncodedOut;
import java.net.SocketAddress;
import javax.net.ssl.SSLSession;

/**
 * A client's or server's socket as its connection, the relay, the log and the admin console use it (the socket part of
 * PgBouncer's sbuf.c): writes, flushes, read pauses, the close, and what SHOW CLIENTS, SHOW SERVERS and SHOW SOCKETS
 * tell of it, whatever carries the bytes. They know a connection's socket by this alone, so that what carries the
 * bytes can change under them: the Netty channel through the login ({@link ChannelSocket}), and for a plain socket on
 * epoll, from then on, the descriptor served without a channel ({@link EpollSocket}).
 *
 * <p>A write or flush may come from any thread (a server's loop relays to a client of another loop): it reaches the
 * socket on its own loop, in the order the writes were made.
 */
public interface ConnectionSocket {
    /** The socket's event loop, which alone touches the state of its connection. */
    EventLoop eventLoop();

    /** The peer's address: the client's, or the server's. */
    SocketAddress remoteAddress();

    /** The proxy's address: the one the client connected to, or the one the proxy connected to the server from. */
    SocketAddress localAddress();

    /** The socket's file descriptor, or -1 when it has none (closed, or not a Unix socket). */
    int descriptor();

    /** Bytes written and not yet taken by the socket (SHOW SOCKETS' send_pending). */
    long pendingWriteBytes();

    /** The TLS session, or null for a plain socket. */
    SSLSession tlsSession();

    /** The process id of the peer over a Unix socket, read once; 0 when unknown or over TCP. */
    int peerPid();

    /** Where the relay's own messages (a renamed Parse, Bind) are allocated. */
    ByteBufAllocator alloc();

    /** Whether the socket is connected and not closed. */
    boolean isOpen();

    /** Whether the socket takes more now without buffering past its high-water mark. */
    boolean isWritable();

    /** Writes a message of the pooler's own (an {@code EncodableMessage}) or a buffer, to go out at the next flush. */
    void write(Object message);

    /** Writes {@code message} and flushes. */
    void writeAndFlush(Object message);

    /** Sends what was written. */
    void flush();

    /** Where relayed bytes, already encoded, are written and flushed: past the encoding of the pooler's messages. */
    EncodedOut encodedOut();

    /** Closes the socket; what was flushed before goes out first. */
    void close();

    /** Writes {@code message}, flushes, and closes once it went out (or could not). */
    void closeAfter(Object message);

    /** Runs {@code done}, on the socket's loop, once what was written so far went out or could not. */
    void whenFlushed(Runnable done);

    /** Runs {@code done} once the socket closed; at once when it is closed. */
    void whenClosed(Runnable done);

    /** Sets or clears {@code reason} ({@link ReadPauses}): the socket reads while no reason is set. */
    void pauseReads(int reason, boolean paused);

    /** Whether no reason to pause the socket's reads is set; on its loop. */
    boolean isReading();

    /** Clears {@code reasons}, on the socket's loop; cheap when none of them is set, which is most often so. */
    void resumeReads(int reasons);
}
