package io.pgmux.proxy.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Which entry of a target's host list a new login tries first, as load_balance_hosts says. round-robin: each login
 * the entry after the previous one's. disable: the same entry until a login fails on it, then the next; while no
 * login has connected to that entry yet, one login tries it and the others wait for its outcome, rather than each
 * trying a host that may be down (PgBouncer, which opens one server connection at a time, tries it once too).
 */
final class FirstHost {
    private static final CompletableFuture<Integer> ONLY = CompletableFuture.completedFuture(0);

    private final int hosts;
    private final boolean roundRobin;
    /** The entry the next login starts at (round-robin: counts up, taken modulo the list's size). */
    private int next;
    /** disable: a login connected to {@link #next} since it became the first entry. */
    private boolean answered;
    /** disable: completed once the login trying an unanswered {@link #next} knows whether it connected. */
    private CompletableFuture<Void> trying;

    FirstHost(int hosts, LoadBalanceHosts mode) {
        this.hosts = hosts;
        this.roundRobin = mode == LoadBalanceHosts.ROUND_ROBIN;
    }

    /** The index the login starts at; with disable, after the outcome of a login already trying that entry. */
    CompletionStage<Integer> pick() {
        if (hosts == 1) {
            return ONLY;
        }
        CompletableFuture<Void> verdict;
        synchronized (this) {
            if (roundRobin) {
                return CompletableFuture.completedFuture(Math.floorMod(next++, hosts));
            }
            if (answered) {
                return CompletableFuture.completedFuture(next);
            }
            if (trying == null) {
                trying = new CompletableFuture<>();
                return CompletableFuture.completedFuture(next);
            }
            verdict = trying;
        }
        return verdict.thenCompose(outcome -> pick());
    }

    /** A login connected to the entry at {@code index}: with disable, logins keep starting there. */
    void connected(int index) {
        settle(index, false);
    }

    /** A login could not connect to the entry at {@code index}: with disable, later logins start at the next. */
    void failed(int index) {
        settle(index, true);
    }

    private void settle(int index, boolean failed) {
        CompletableFuture<Void> verdict;
        synchronized (this) {
            if (roundRobin || hosts == 1 || index != next) {
                return;
            }
            if (failed) {
                next = (index + 1) % hosts;
                answered = false;
            } else {
                answered = true;
            }
            verdict = trying;
            trying = null;
        }
        // outside the lock: the waiting logins pick again, and start connecting, on this thread
        if (verdict != null) {
            verdict.complete(null);
        }
    }
}
