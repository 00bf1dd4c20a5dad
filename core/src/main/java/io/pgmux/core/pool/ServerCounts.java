package io.pgmux.core.pool;

/** A pool's servers by PgBouncer state, counted in one pass over them; closing ones are not counted. */
final class ServerCounts {
    /** Lent to a client. */
    final int active;
    /** Idle and ready for immediate use. */
    final int idle;
    /** Idle, but tested before the next loan (unused for longer than server_check_delay). */
    final int used;
    /** Running server_check_query or server_reset_query. */
    final int tested;
    /** Logging in. */
    final int login;

    ServerCounts(int active, int idle, int used, int tested, int login) {
        this.active = active;
        this.idle = idle;
        this.used = used;
        this.tested = tested;
        this.login = login;
    }

    /** Servers a client holds or that are being tested or reset for one: HikariCP's active connections. */
    int inUse() {
        return active + tested;
    }

    /** Idle servers, tested before use or not: HikariCP's idle connections. */
    int unused() {
        return idle + used;
    }
}
