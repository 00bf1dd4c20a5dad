package io.pgmux.core.fleet;

/**
 * How a budget divides among members by their demand: max-min fair (water-filling). Every member gets 1 first
 * while the budget lasts, so that one that turns busy is served before the next rebalance; then what is left
 * goes in equal parts to the members that want more, a part a member does not need going to the others. An
 * idle member's unused share is thereby lent to the busy ones, and taken back as soon as its demand grows.
 * The same inputs in the same order give every member the same answer.
 */
public final class FleetShares {
    private FleetShares() {
    }

    /** The share of each member, in the order of {@code demands}; they add up to at most {@code budget}. */
    public static int[] allocate(int budget, int[] demands) {
        int n = demands.length;
        int[] shares = new int[n];
        int left = Math.max(0, budget);
        for (int i = 0; i < n && left > 0; i++) {
            shares[i] = 1;
            left--;
        }
        while (left > 0) {
            int wanting = 0;
            for (int i = 0; i < n; i++) {
                if (shares[i] < demands[i]) {
                    wanting++;
                }
            }
            if (wanting == 0) {
                break;
            }
            int part = Math.max(1, left / wanting);
            for (int i = 0; i < n && left > 0; i++) {
                int more = Math.min(Math.min(part, demands[i] - shares[i]), left);
                if (more > 0) {
                    shares[i] += more;
                    left -= more;
                }
            }
        }
        return shares;
    }
}
