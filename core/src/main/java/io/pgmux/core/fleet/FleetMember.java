package io.pgmux.core.fleet;

/** The pool side of a fleet: what it wants, what it holds, and the cap it obeys. */
public interface FleetMember {
    /** The server connections the member would use now, at most its own pool size. */
    int demand();

    /** The server connections the member holds now, those logging in included. */
    int servers();

    /**
     * Holds the member to {@code cap} server connections from now on: no login starts above it, and a lower cap
     * closes idle connections above it at once and the others as they come back.
     */
    void cap(int cap);

    /**
     * As {@link #cap(int)} for {@code validForNanos}, then {@code fencedCap} until the next call: the member
     * fences itself when its coordinator has not renewed its share for as long as the others wait before they
     * may count it dead (a long GC pause, a stopped process).
     */
    void cap(int cap, long validForNanos, int fencedCap);

    /** What the member's coordinator saw at its last heartbeat, to show. */
    void status(FleetStatus status);
}
