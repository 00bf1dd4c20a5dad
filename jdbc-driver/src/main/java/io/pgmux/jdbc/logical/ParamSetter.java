package io.pgmux.jdbc.logical;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/** One recorded parameter binding, replayed on whichever pgjdbc statement executes. */
@FunctionalInterface
interface ParamSetter {
    void apply(PreparedStatement ps) throws SQLException;
}
