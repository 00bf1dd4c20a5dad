package io.pgmux.jmh.load;

/** A minimal transaction pooler the proxy is measured against: {@link NettyFloor}, {@link SocketFloor}. */
interface Floor extends AutoCloseable {
    /** The port it takes clients on. */
    int port();

    @Override
    void close();
}
