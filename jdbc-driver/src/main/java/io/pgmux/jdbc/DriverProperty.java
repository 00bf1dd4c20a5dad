package io.pgmux.jdbc;

import io.pgmux.core.config.ConfigException;
import io.pgmux.core.config.Durations;
import io.pgmux.jdbc.pool.ReadRouting;
import java.time.Duration;
import java.util.Locale;

/**
 * Settings of the JDBC layer that are not pool settings of the engine: HikariCP's names for what every
 * logical connection starts with, for how the pool starts and for where its logins take their credentials. Accepted in the driver URL, beside it in the
 * {@code Properties}, and as {@link PgMuxDataSource} bean properties.
 */
enum DriverProperty {
    CONNECTION_INIT_SQL("connectionInitSql", null, Type.STRING, null,
            "SQL run once on every new server connection; if it fails, so does the login"),
    AUTO_COMMIT("autoCommit", null, Type.BOOLEAN, "true",
            "Auto-commit mode of every new logical connection"),
    READ_ONLY("readOnly", null, Type.BOOLEAN, "false",
            "Read-only mode of every new logical connection (taken from pgjdbc's readOnly, so that"
                    + " setReadOnly() keeps working on whichever server connection serves it)"),
    TRANSACTION_ISOLATION("transactionIsolation", null, Type.ISOLATION, null,
            "Isolation level of every new logical connection, e.g. TRANSACTION_REPEATABLE_READ;"
                    + " unset: the server's default_transaction_isolation"),
    REGISTER_MBEANS("registerMbeans", null, Type.BOOLEAN, "false",
            "Register the pool's MXBean as io.pgmux:type=Pool,name=<poolName>"),
    INITIALIZATION_FAIL_TIMEOUT("initializationFailTimeout", null, Type.LONG, "1",
            "When the pool starts: > 0 opens one server connection and fails if it cannot;"
                    + " 0 tries but starts anyway; < 0 does not try"),
    IDLE_TRANSACTION_TIMEOUT("idleTransactionTimeout", "idle_transaction_timeout", Type.DURATION, "0",
            "A logical connection idle inside a transaction this long has its transaction rolled back and is"
                    + " closed; 0 never (one garbage-collected without close() is always reclaimed)."
                    + " PgBouncer's name: idle_transaction_timeout (seconds)"),
    CREDENTIALS_PROVIDER_CLASS_NAME("credentialsProviderClassName", null, Type.STRING, null,
            "A class implementing io.pgmux.jdbc.credentials.CredentialsProvider (public, with a public no-argument"
                    + " constructor), asked for the user and password of each new server connection, as HikariCP's"),
    PASSWORD_FILE("passwordFile", null, Type.STRING, null,
            "A file holding the password, read again at each new server connection (a Kubernetes secret volume)"),
    USERNAME_FILE("usernameFile", null, Type.STRING, null,
            "With passwordFile: a file holding the user name, read again at each new server connection"),
    PASSWORD_COMMAND("passwordCommand", null, Type.STRING, null,
            "A shell command printing the password (a token issuer), run for new server connections"),
    PASSWORD_COMMAND_CACHE_TIME("passwordCommandCacheTime", null, Type.DURATION, "0",
            "How long passwordCommand's output is used before the command runs again; 0 runs it at each new"
                    + " server connection. Milliseconds, or with a unit (10m)"),
    READ_ROUTING("readRouting", null, Type.READ_ROUTING, "off",
            "off: every transaction runs on the server the URL finds. replicas: the URL's host list has one primary"
                    + " and standbys; read-only transactions (setReadOnly(true)) run on a standby, the rest on the"
                    + " primary"),
    REPLICA_CHECK_PERIOD("replicaCheckPeriod", null, Type.DURATION, "1000",
            "With readRouting=replicas: how often each host is asked whether it is a standby and how far it has"
                    + " replayed. Milliseconds, or with a unit (2s)"),
    READ_YOUR_WRITES("readYourWrites", null, Type.BOOLEAN, "true",
            "With readRouting=replicas: a logical connection's read-only transactions see its own committed writes"
                    + " (they run only on a standby that has replayed them, else on the primary)"),
    REPLICA_WAIT_TIMEOUT("replicaWaitTimeout", null, Type.DURATION, "100",
            "With readYourWrites: how long a read-only transaction waits for a standby to replay its connection's"
                    + " last write before it runs on the primary. Milliseconds, or with a unit (1s)"),
    REPLICA_MAX_LAG("replicaMaxLag", null, Type.DURATION, "0",
            "With readRouting=replicas: a standby whose replay lags the primary by more than this leaves the read set"
                    + " until it catches up; 0: no bound. Milliseconds, or with a unit (10s)"),
    FLEET("fleet", null, Type.STRING, null,
            "The fleet this pool belongs to: every pool of the same fleet, database and user, in any process, holds"
                    + " at most fleetMaxServers server connections together (docs/fleet.md); unset: no fleet"),
    FLEET_MAX_SERVERS("fleetMaxServers", null, Type.LONG, null,
            "With fleet: the server connections the fleet's pools of this database and user hold together");

    /** How a value is written. */
    enum Type { STRING, BOOLEAN, LONG, ISOLATION, DURATION, READ_ROUTING }

    private final String propertyName;
    /** PgBouncer's name, where PgBouncer has the setting: a bare number under it is seconds. */
    private final String pgbouncerName;
    private final Type type;
    private final String defaultText;
    /** {@link #defaultText} as a value of the property's type, parsed once. */
    private final Object defaultValue;
    private final String description;

    DriverProperty(String propertyName, String pgbouncerName, Type type, String defaultText, String description) {
        this.propertyName = propertyName;
        this.pgbouncerName = pgbouncerName;
        this.type = type;
        this.defaultText = defaultText;
        this.description = description;
        this.defaultValue = defaultText == null ? null : parse(propertyName, defaultText);
    }

    String propertyName() {
        return propertyName;
    }

    /** Whether its value is a duration, written with a unit or as a bare number in its name's unit. */
    boolean isDuration() {
        return type == Type.DURATION;
    }

    /** The default as text, or null where the default is "not set". */
    String defaultText() {
        return defaultText;
    }

    /** The default as a value of the property's type (as {@link #parse} gives it), or null where it is "not set". */
    Object defaultValue() {
        return defaultValue;
    }

    String description() {
        return description;
    }

    /**
     * The property for a name: its camelCase name compared case-insensitively like the engine's, or its
     * PgBouncer name exactly; or null.
     */
    static DriverProperty lookup(String name) {
        if (name == null) {
            return null;
        }
        String trimmed = name.trim();
        for (DriverProperty p : values()) {
            if (p.propertyName.equalsIgnoreCase(trimmed) || trimmed.equals(p.pgbouncerName)) {
                return p;
            }
        }
        return null;
    }

    /**
     * The typed value: String, Boolean, Long, Integer (a {@code java.sql.Connection} isolation level) or
     * Duration (a bare number in milliseconds under the camelCase name, in seconds under PgBouncer's).
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
            case DURATION:
                Duration d;
                try {
                    d = Durations.parse(value, writtenName.indexOf('_') >= 0);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(writtenName, writtenName + "=" + text + ": " + e.getMessage());
                }
                if (d.isNegative()) {
                    throw new ConfigException(writtenName, writtenName + "=" + text + ": must not be negative");
                }
                return d;
            case READ_ROUTING:
                try {
                    return ReadRouting.parse(value);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(writtenName, writtenName + "=" + text + ": " + e.getMessage());
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
