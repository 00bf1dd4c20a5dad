package io.pgmux.proxy.prepared;

/**
 * What a client's named statements need of the server connection they go to: writing to it, and the statements
 * prepared on it. The server's connection implements it, so that this package depends on none of the server's.
 */
public interface StatementServer {
    /** Queues a message or buffer for the server; the read's end flushes it. */
    void write(Object message);

    /** The statements prepared on this server connection. */
    PreparedStatementCache preparedStatements();
}
