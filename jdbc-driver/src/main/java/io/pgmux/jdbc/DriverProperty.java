package io.pgmux.jdbc;

import io.pgmux.core.config.ConfigException;
import java.util.Locale;

/**
 * Settings of the JDBC layer that are not pool settings of the engine: HikariCP's names for what every
 * logical connection starts with and for how the pool starts. Accepted in the driver URL, beside it in the
 * {@code Properties}, and as {@link PgMuxDataSource} bean properties.
 */
enum DriverProperty {
    CONNECTION_INIT_SQL("connectionInitSql", Type.STRING, null,
            "SQL run once on every new server connection; if it fails, so does the login"),
    AUTO_COMMIT("autoCommit", Type.BOOLEAN, "true",
            "Auto-commit mode of every new logical connection"),
    READ_ONLY("readOnly", Type.BOOLEAN, "false",
            "Read-only mode of every new logical connection (taken from pgjdbc's readOnly, so that"
                    + " setReadOnly() keeps working on whichever server connection serves it)"),
    TRANSACTION_ISOLATION("transactionIsolation", Type.ISOLATION, null,
            "Isolation level of every new logical connection, e.g. TRANSACTION_REPEATABLE_READ;"
                    + " unset: the server's default_transaction_isolation"),
    REGISTER_MBEANS("registerMbeans", Type.BOOLEAN, "false",
            "Register the pool's MXBean as io.pgmux:type=Pool,name=<poolName>"),
    INITIALIZATION_FAIL_TIMEOUT("initializationFailTimeout", Type.LONG, "1",
            "When the pool starts: > 0 opens one server connection and fails if it cannot;"
                    + " 0 tries but starts anyway; < 0 does not try");

    /** How a value is written. */
    enum Type { STRING, BOOLEAN, LONG, ISOLATION }

    private final String propertyName;
    private final Type type;
    private final String defaultText;
    private final String description;

    DriverProperty(String propertyName, Type type, String defaultText, String description) {
        this.propertyName = propertyName;
        this.type = type;
        this.defaultText = defaultText;
        this.description = description;
    }

    String propertyName() {
        return propertyName;
    }

    /** The default as text, or null where the default is "not set". */
    String defaultText() {
        return defaultText;
    }

    String description() {
        return description;
    }

    /** The property for a name, compared case-insensitively like the engine's camelCase names; or null. */
    static DriverProperty lookup(String name) {
        if (name == null) {
            return null;
        }
        String trimmed = name.trim();
        for (DriverProperty p : values()) {
            if (p.propertyName.equalsIgnoreCase(trimmed)) {
                return p;
            }
        }
        return null;
    }

    /**
     * The typed value: String, Boolean, Long, or Integer (a {@code java.sql.Connection} isolation level).
     *
     * @throws ConfigException naming the setting as written when the text is not a valid value
     */
    Object parse(String writtenName, String text) {
        String value = text == null ? "" : text.trim();
        switch (type) {
            case BOOLEAN:
                switch (value.toLowerCase(Locale.ROOT)) {
                    case "true":
                    case "on":
                    case "yes":
                    case "1":
                        return Boolean.TRUE;
                    case "false":
                    case "off":
                    case "no":
                    case "0":
                        return Boolean.FALSE;
                    default:
                        throw new ConfigException(writtenName, writtenName + "=" + text
                                + ": must be true or false (1/0, yes/no, on/off)");
                }
            case LONG:
                try {
                    return Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new ConfigException(writtenName, writtenName + "=" + text + ": must be a whole number");
                }
            case ISOLATION:
                try {
                    return IsolationLevels.parse(writtenName, value);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(writtenName, e.getMessage());
                }
            default:
                return text == null ? "" : text;
        }
    }
}
