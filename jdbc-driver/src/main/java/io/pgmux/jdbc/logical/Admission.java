package io.pgmux.jdbc.logical;

/** How the pool counted a logical connection as a client, so that it is counted out the same way. */
public enum Admission {
    /**
     * Not counted: in session mode without a max_client_conn limit, a logical connection is linked to a
     * server connection (cl_active) or waits for one (cl_waiting) from getConnection() to close(), so the
     * pool's counts show it already.
     */
    UNCOUNTED,
    /** Counted by its pool. */
    COUNTED,
    /** Counted by its pool and against max_client_conn. */
    LIMITED
}
