package io.pgmux.core.pool;

/**
 * How {@link PoolRegistry#admitClient} counted a client, so that {@link PoolRegistry#clientLeaves} counts
 * it out the same way.
 */
public enum ClientAdmission {
    /**
     * Not counted: without a max_client_conn limit, a client linked to a server connection (cl_active) or
     * waiting for one (cl_waiting) for its whole life, as a session-mode logical connection is, shows in
     * the pool's figures already.
     */
    UNCOUNTED,
    /** Counted by its pool. */
    COUNTED,
    /** Counted by its pool and against max_client_conn. */
    LIMITED
}
