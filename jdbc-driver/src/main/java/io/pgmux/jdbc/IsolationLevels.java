package io.pgmux.jdbc;

import java.sql.Connection;
import java.util.Locale;

/** HikariCP's transactionIsolation values: a {@code Connection.TRANSACTION_*} name, or its number as text. */
final class IsolationLevels {
    private IsolationLevels() {
    }

    /**
     * The JDBC level for a name such as {@code TRANSACTION_READ_COMMITTED} (the prefix and case are
     * optional) or a number such as {@code 2}.
     *
     * @throws IllegalArgumentException naming the setting when the value is none of PostgreSQL's levels
     */
    static int parse(String setting, String text) {
        String value = text == null ? "" : text.trim().toUpperCase(Locale.ROOT).replace(' ', '_');
        if (value.startsWith("TRANSACTION_")) {
            value = value.substring("TRANSACTION_".length());
        }
        switch (value) {
            case "READ_UNCOMMITTED":
            case "1":
                return Connection.TRANSACTION_READ_UNCOMMITTED;
            case "READ_COMMITTED":
            case "2":
                return Connection.TRANSACTION_READ_COMMITTED;
            case "REPEATABLE_READ":
            case "4":
                return Connection.TRANSACTION_REPEATABLE_READ;
            case "SERIALIZABLE":
            case "8":
                return Connection.TRANSACTION_SERIALIZABLE;
            default:
                throw new IllegalArgumentException(setting + "=" + text + ": must be one of"
                        + " TRANSACTION_READ_UNCOMMITTED, TRANSACTION_READ_COMMITTED, TRANSACTION_REPEATABLE_READ,"
                        + " TRANSACTION_SERIALIZABLE (or 1, 2, 4, 8)");
        }
    }
}
