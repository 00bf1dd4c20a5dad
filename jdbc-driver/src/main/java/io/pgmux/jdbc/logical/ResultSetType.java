package io.pgmux.jdbc.logical;

import java.sql.ResultSet;

/** Type, concurrency and holdability a statement was created with; -1 holdability means the driver's default. */
final class ResultSetType {
    static final ResultSetType DEFAULT = new ResultSetType(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, -1);

    final int type;
    final int concurrency;
    final int holdability;

    ResultSetType(int type, int concurrency, int holdability) {
        this.type = type;
        this.concurrency = concurrency;
        this.holdability = holdability;
    }

    boolean isDefault() {
        return type == ResultSet.TYPE_FORWARD_ONLY && concurrency == ResultSet.CONCUR_READ_ONLY && holdability == -1;
    }
}
