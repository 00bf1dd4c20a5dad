package io.pgmux.core.fleet;

/**
 * A member's view of its fleet after its last heartbeat: what SHOW FLEET, the MXBean and the meters show.
 * Capacity lent or borrowed is measured against the equal part, the budget divided by the members: a member
 * holding a share below it lends the rest to the others, one above it borrows from them.
 *
 * @param fleet the fleet's name
 * @param budget the budget in force (the smallest any member gives)
 * @param share the member's cap: the server connections it may hold
 * @param members the members seen, this one included
 * @param fallback whether coordination failed and the member holds a fixed share
 */
public record FleetStatus(String fleet, int budget, int share, int members, boolean fallback) {
    /** The equal part of the budget the member's share leaves to the others. */
    public int lent() {
        return Math.max(0, equalPart() - share);
    }

    /** What the member's share holds beyond its equal part of the budget. */
    public int borrowed() {
        return Math.max(0, share - equalPart());
    }

    private int equalPart() {
        return budget / Math.max(1, members);
    }
}
