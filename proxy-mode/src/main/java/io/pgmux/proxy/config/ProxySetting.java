package io.pgmux.proxy.config;

import static io.pgmux.proxy.config.ProxySetting.Change.RELOAD;
import static io.pgmux.proxy.config.ProxySetting.Change.RESTART;
import static io.pgmux.proxy.config.Scopes.D;
import static io.pgmux.proxy.config.Scopes.DU;
import static io.pgmux.proxy.config.Scopes.G;
import static io.pgmux.proxy.config.Scopes.GD;
import static io.pgmux.proxy.config.Scopes.GDU;
import static io.pgmux.proxy.config.Scopes.GU;
import static io.pgmux.proxy.config.Scopes.NONE;

import io.pgmux.core.config.ConfigKey;
import io.pgmux.core.config.Durations;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.config.UnknownSetting;
import io.pgmux.proxy.auth.AuthQuery;
import io.pgmux.proxy.auth.AuthType;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every key of PgBouncer 1.25's configuration, and pgmux's own, in one table: its type and default, whether RELOAD
 * applies it, where PgBouncer takes it ({@code [pgbouncer]}, a {@code [databases]} entry, a {@code [users]} entry)
 * and where pgmux takes it. A key PgBouncer has and pgmux does not take yet is logged and ignored in
 * {@code [pgbouncer]} and refused by name in an entry. The pool settings core knows delegate their type, default
 * and parsing to {@link ConfigKey}; an entry's pool setting names the global one it overrides.
 */
public enum ProxySetting {
    // [databases] entries: where the database lives
    HOST("host", Type.TEXT, "", RESTART, D, D),
    PORT("port", Type.TEXT, "5432", RESTART, D, D),
    DBNAME("dbname", Type.TEXT, "", RESTART, D, D),
    USER("user", Type.TEXT, "", RESTART, D, GD),
    PASSWORD("password", Type.TEXT, "", RESTART, D, D),
    SSLMODE("sslmode", Type.TLS_MODE, "", RESTART, D, NONE),
    LOAD_BALANCE_HOSTS("load_balance_hosts", Type.TEXT, "round-robin", RESTART, D, D),
    TARGET_SESSION_ATTRS("target_session_attrs", Type.TEXT, "any", RESTART, D, NONE),
    /** pgmux's: off, or replicas (the host list is a primary and standbys; read-only transactions go to these). */
    READ_ROUTING("read_routing", Type.TEXT, "off", RESTART, D, NONE),
    /** pgmux's, with read_routing = replicas: a client's reads see its own last commit. */
    READ_YOUR_WRITES("read_your_writes", Type.SWITCH, "1", RESTART, D, NONE),
    /** pgmux's: how long a read waits for a standby to replay its client's last commit before the primary serves it. */
    REPLICA_WAIT_TIMEOUT("replica_wait_timeout", Type.SECONDS, "0.1", RESTART, D, NONE),
    /** pgmux's: how often each host of a read-routing entry is asked whether it is a standby, and its replay position. */
    REPLICA_CHECK_PERIOD("replica_check_period", Type.SECONDS, "1", RESTART, D, NONE),
    /** pgmux's: a standby whose replay lags the primary by more than this leaves the read set; 0: no bound. */
    REPLICA_MAX_LAG("replica_max_lag", Type.SECONDS, "0", RESTART, D, NONE),
    /** pgmux's: the server password read from this file at each new server login, beside password=. */
    SERVER_PASSWORD_FILE("server_password_file", Type.FILE, "", RELOAD, GD, NONE),
    /** pgmux's: the server password printed by this shell command, kept for its cache time. */
    SERVER_PASSWORD_COMMAND("server_password_command", Type.TEXT, "", RELOAD, GD, NONE),
    /** How long a server_password_command's output is used before it runs again; 0 runs it at each login. */
    SERVER_PASSWORD_COMMAND_CACHE_TIME("server_password_command_cache_time", Type.SECONDS, "0", RELOAD, G, NONE),
    /** Run once on each new server connection after its login, before any client uses it. */
    CONNECT_QUERY("connect_query", Type.TEXT, "", RESTART, D, D),
    /** Startup parameters of each new server connection. */
    CLIENT_ENCODING("client_encoding", Type.TEXT, "", RESTART, D, D),
    DATESTYLE("datestyle", Type.TEXT, "", RESTART, D, D),
    TIMEZONE("timezone", Type.TEXT, "", RESTART, D, D),
    APPLICATION_NAME("application_name", Type.TEXT, "", RESTART, D, D),

    // the proxy's own
    LISTEN_ADDR("listen_addr", Type.ADDRESS, "127.0.0.1", RESTART, G, G),
    LISTEN_PORT("listen_port", Type.INT, "6432", RESTART, G, G),
    LISTEN_BACKLOG("listen_backlog", Type.COUNT, "128", RESTART, G, G),
    UNIX_SOCKET_DIR("unix_socket_dir", Type.TEXT, "/tmp", RESTART, G, G),
    UNIX_SOCKET_MODE("unix_socket_mode", Type.FILE_MODE, "0777", RESTART, G, G),
    UNIX_SOCKET_GROUP("unix_socket_group", Type.TEXT, "", RESTART, G, G),
    SO_REUSEPORT("so_reuseport", Type.SWITCH, "0", RESTART, G, G),
    TCP_DEFER_ACCEPT("tcp_defer_accept", Type.SWITCH, "1", RELOAD, G, G),
    TCP_SOCKET_BUFFER("tcp_socket_buffer", Type.COUNT, "0", RELOAD, G, G),
    TCP_KEEPALIVE("tcp_keepalive", Type.SWITCH, "1", RELOAD, G, G),
    TCP_KEEPCNT("tcp_keepcnt", Type.COUNT, "0", RELOAD, G, G),
    TCP_KEEPIDLE("tcp_keepidle", Type.COUNT, "0", RELOAD, G, G),
    TCP_KEEPINTVL("tcp_keepintvl", Type.COUNT, "0", RELOAD, G, G),
    TCP_USER_TIMEOUT("tcp_user_timeout", Type.COUNT, "0", RELOAD, G, G),
    LOG_CONNECTIONS("log_connections", Type.SWITCH, "1", RELOAD, G, G),
    LOG_DISCONNECTIONS("log_disconnections", Type.SWITCH, "1", RELOAD, G, G),
    LOG_POOLER_ERRORS("log_pooler_errors", Type.SWITCH, "1", RELOAD, G, G),
    LOG_STATS("log_stats", Type.SWITCH, "1", RELOAD, G, G),
    STATS_PERIOD("stats_period", Type.SECONDS, "60", RELOAD, G, G),
    AUTH_TYPE("auth_type", Type.AUTH_TYPE, "md5", RELOAD, G, G),
    AUTH_FILE("auth_file", Type.FILE, "", RELOAD, G, G),
    /** pgmux's: how often the auth file is checked for a change and read again; 0 (PgBouncer's way) never. */
    AUTH_FILE_CHECK_PERIOD("auth_file_check_period", Type.SECONDS, "0", RELOAD, G, NONE),
    /** The file RELOAD reads: the one the proxy was loaded from unless set to another. */
    CONFFILE("conffile", Type.FILE, "", RELOAD, G, G),
    AUTH_HBA_FILE("auth_hba_file", Type.FILE, "", RELOAD, G, G),
    AUTH_IDENT_FILE("auth_ident_file", Type.FILE, "", RELOAD, G, G),
    AUTH_USER("auth_user", Type.TEXT, "", RELOAD, GD, GD),
    AUTH_QUERY("auth_query", Type.TEXT, AuthQuery.DEFAULT_QUERY, RELOAD, GD, GD),
    AUTH_DBNAME("auth_dbname", Type.TEXT, "", RELOAD, GD, GD),
    SCRAM_ITERATIONS("scram_iterations", Type.COUNT, "4096", RELOAD, G, G),
    ADMIN_USERS("admin_users", Type.USERS, "", RELOAD, G, G),
    STATS_USERS("stats_users", Type.USERS, "", RELOAD, G, G),
    CLIENT_LOGIN_TIMEOUT("client_login_timeout", Type.SECONDS, "60", RELOAD, G, G),
    CLIENT_IDLE_TIMEOUT("client_idle_timeout", Type.SECONDS, "0", RELOAD, GU, GU),
    IDLE_TRANSACTION_TIMEOUT("idle_transaction_timeout", Type.SECONDS, "0", RELOAD, GU, GU),
    QUERY_TIMEOUT("query_timeout", Type.SECONDS, "0", RELOAD, GU, GU),
    TRANSACTION_TIMEOUT("transaction_timeout", Type.SECONDS, "0", RELOAD, GU, GU),
    CANCEL_WAIT_TIMEOUT("cancel_wait_timeout", Type.SECONDS, "10", RELOAD, G, G),
    /** On: a close_needed server closes once its transaction ended, session mode too, and its client with it. */
    SERVER_FAST_CLOSE("server_fast_close", Type.SWITCH, "0", RELOAD, G, G),
    /** How long an auto-database (made from the {@code *} entry) stays unused before it is dropped. */
    AUTODB_IDLE_TIMEOUT("autodb_idle_timeout", Type.SECONDS, "3600", RELOAD, G, G),
    /** How long a pool (database, user) stays without clients and servers before it is freed; 0 keeps it. */
    POOL_IDLE_TIMEOUT("pool_idle_timeout", Type.SECONDS, "0", RELOAD, G, G),
    /** Taken for SUSPEND, which bounds its wait with it. */
    SUSPEND_TIMEOUT("suspend_timeout", Type.SECONDS, "10", RELOAD, G, G),
    MAX_PREPARED_STATEMENTS("max_prepared_statements", Type.COUNT, "200", RELOAD, G, G),
    THREADS("threads", Type.COUNT, "0", RESTART, G, NONE),
    TRANSPORT("transport", Type.TRANSPORT, "epoll", RESTART, G, NONE),
    PIN_SESSION_STATE("pin_session_state", Type.PIN_SESSION_STATE, "on", RELOAD, GD, NONE),
    /** pgmux's: the fleet whose budget the database's pools share with other processes' (docs/fleet.md). */
    FLEET("fleet", Type.TEXT, "", RELOAD, D, NONE),
    /** pgmux's: with fleet, the server connections the fleet's pools of the database and a user hold together. */
    FLEET_MAX_SERVERS("fleet_max_servers", Type.TEXT, "", RELOAD, D, NONE),
    MAX_PACKET_SIZE("max_packet_size", Type.COUNT, "2147483647", RELOAD, G, G),
    /** On: a client's simple-protocol Query closes it with PgBouncer's {@code PQexec disallowed}. */
    DISABLE_PQEXEC("disable_pqexec", Type.SWITCH, "0", RESTART, G, G),
    METRICS_LISTEN("metrics_listen", Type.HOST_PORT, "", RESTART, G, NONE),
    SERVER_TLS_SSLMODE("server_tls_sslmode", Type.TLS_MODE, "prefer", RELOAD, GD, G),
    SERVER_TLS_CA_FILE("server_tls_ca_file", Type.FILE, "", RELOAD, G, G),
    SERVER_TLS_CERT_FILE("server_tls_cert_file", Type.FILE, "", RELOAD, G, G),
    SERVER_TLS_KEY_FILE("server_tls_key_file", Type.FILE, "", RELOAD, G, G),
    SERVER_TLS_PROTOCOLS("server_tls_protocols", Type.TLS_PROTOCOLS, "secure", RELOAD, G, G),
    SERVER_TLS_CIPHERS("server_tls_ciphers", Type.TEXT, "default", RELOAD, G, G),
    SERVER_TLS13_CIPHERS("server_tls13_ciphers", Type.TEXT, "", RELOAD, G, G),
    CLIENT_TLS_SSLMODE("client_tls_sslmode", Type.TLS_MODE, "disable", RELOAD, G, G),
    CLIENT_TLS_KEY_FILE("client_tls_key_file", Type.FILE, "", RELOAD, G, G),
    CLIENT_TLS_CERT_FILE("client_tls_cert_file", Type.FILE, "", RELOAD, G, G),
    CLIENT_TLS_CA_FILE("client_tls_ca_file", Type.FILE, "", RELOAD, G, G),
    CLIENT_TLS_PROTOCOLS("client_tls_protocols", Type.TLS_PROTOCOLS, "secure", RELOAD, G, G),
    CLIENT_TLS_CIPHERS("client_tls_ciphers", Type.TEXT, "default", RELOAD, G, G),
    CLIENT_TLS13_CIPHERS("client_tls13_ciphers", Type.TEXT, "", RELOAD, G, G),
    CLIENT_TLS_ECDHCURVE("client_tls_ecdhcurve", Type.TEXT, "auto", RELOAD, G, G),
    CLIENT_TLS_DHEPARAMS("client_tls_dheparams", Type.TEXT, "auto", RELOAD, G, G),
    /** Startup parameters dropped: neither replayed on the servers nor reported back. */
    IGNORE_STARTUP_PARAMETERS("ignore_startup_parameters", Type.NAMES, "", RELOAD, G, G),
    /** Not 0: the client's address is added to the application_name its servers see. */
    APPLICATION_NAME_ADD_HOST("application_name_add_host", Type.INT, "0", RELOAD, G, G),
    /** Clients of one database at once; an entry's own value above 0 wins. */
    MAX_DB_CLIENT_CONNECTIONS("max_db_client_connections", Type.COUNT, "0", RELOAD, GD, GD),
    /** Clients of one user at once; an entry's own value above 0 wins. */
    MAX_USER_CLIENT_CONNECTIONS("max_user_client_connections", Type.COUNT, "0", RELOAD, GU, GU),
    /** Whole seconds a client waits for a server before a NOTICE tells it so; 0 for none. */
    QUERY_WAIT_NOTIFY("query_wait_notify", Type.COUNT, "5", RELOAD, G, G),
    /** A NOTICE every client gets once logged in; empty for none. */
    LOGIN_NOTIFY_MESSAGE("login_notify_message", Type.TEXT, "", RELOAD, G, G),

    // the standalone process's (an embedded proxy reports them as ignored)
    LOGFILE("logfile", Type.FILE, "", RELOAD, G, G),
    PIDFILE("pidfile", Type.FILE, "", RESTART, G, G),
    SYSLOG("syslog", Type.SWITCH, "0", RELOAD, G, G),
    SYSLOG_IDENT("syslog_ident", Type.TEXT, "pgbouncer", RELOAD, G, G),
    SYSLOG_FACILITY("syslog_facility", Type.SYSLOG_FACILITY, "daemon", RELOAD, G, G),
    /** Added to the command line's {@code -v} count. */
    VERBOSE("verbose", Type.COUNT, "0", RELOAD, G, G),

    // PgBouncer's, taken with no effect in pgmux (docs/configuration.md says why)
    /** pgmux follows every parameter a client sets, whatever this lists. */
    TRACK_EXTRA_PARAMETERS("track_extra_parameters", Type.NAMES, "IntervalStyle", RESTART, G, G),
    /** pgmux prefers a server on the client's own event loop. */
    SERVER_ROUND_ROBIN("server_round_robin", Type.INT, "0", RELOAD, G, G),
    /** Netty sizes its buffers itself. */
    PKT_BUF("pkt_buf", Type.COUNT, "4096", RESTART, G, G),
    /** Netty bounds what one event loop reads per socket itself. */
    SBUF_LOOPCNT("sbuf_loopcnt", Type.COUNT, "5", RELOAD, G, G),
    /** Names are resolved by the JVM, which caches them as its networkaddress.cache.* properties say. */
    DNS_MAX_TTL("dns_max_ttl", Type.SECONDS, "15", RELOAD, G, G),
    DNS_NXDOMAIN_TTL("dns_nxdomain_ttl", Type.SECONDS, "15", RELOAD, G, G),
    DNS_ZONE_CHECK_PERIOD("dns_zone_check_period", Type.SECONDS, "0", RELOAD, G, G),
    RESOLV_CONF("resolv_conf", Type.TEXT, "", RESTART, G, G),
    /** The name of PgBouncer's Windows service; service_name is its alias, which PgBouncer takes on Windows only. */
    JOB_NAME("job_name", Type.TEXT, "pgbouncer", RESTART, G, G),
    SERVICE_NAME("service_name", Type.TEXT, "pgbouncer", RESTART, G, NONE),
    /** This process's id in a group of peers ([peers]): carried in its cancel keys; 0 takes no part in peering. */
    PEER_ID("peer_id", Type.INT, "0", RELOAD, G, G),

    // the pool settings, parsed by core's ConfigKey
    POOL_MODE(ConfigKey.POOL_MODE, GDU, GDU),
    POOL_SIZE("pool_size", ConfigKey.DEFAULT_POOL_SIZE, DU, DU),
    DEFAULT_POOL_SIZE(ConfigKey.DEFAULT_POOL_SIZE, G, G),
    MIN_POOL_SIZE(ConfigKey.MIN_POOL_SIZE, GD, GD),
    RESERVE_POOL("reserve_pool", ConfigKey.RESERVE_POOL_SIZE, D, D),
    RESERVE_POOL_SIZE(ConfigKey.RESERVE_POOL_SIZE, GDU, GDU),
    RESERVE_POOL_TIMEOUT(ConfigKey.RESERVE_POOL_TIMEOUT, G, G),
    QUERY_WAIT_TIMEOUT(ConfigKey.QUERY_WAIT_TIMEOUT, GDU, GDU),
    SERVER_IDLE_TIMEOUT(ConfigKey.SERVER_IDLE_TIMEOUT, G, G),
    SERVER_LIFETIME(ConfigKey.SERVER_LIFETIME, GD, GD),
    SERVER_CONNECT_TIMEOUT(ConfigKey.SERVER_CONNECT_TIMEOUT, G, G),
    SERVER_LOGIN_RETRY(ConfigKey.SERVER_LOGIN_RETRY, G, G),
    SERVER_CHECK_DELAY(ConfigKey.SERVER_CHECK_DELAY, G, G),
    SERVER_CHECK_QUERY(ConfigKey.SERVER_CHECK_QUERY, G, G),
    SERVER_RESET_QUERY(ConfigKey.SERVER_RESET_QUERY, G, G),
    SERVER_RESET_QUERY_ALWAYS(ConfigKey.SERVER_RESET_QUERY_ALWAYS, G, G),
    MAX_DB_CONNECTIONS(ConfigKey.MAX_DB_CONNECTIONS, GD, GD),
    MAX_USER_CONNECTIONS(ConfigKey.MAX_USER_CONNECTIONS, GU, GU),
    MAX_CLIENT_CONN(ConfigKey.MAX_CLIENT_CONN, G, G),
    LEAK_DETECTION_THRESHOLD(ConfigKey.LEAK_DETECTION_THRESHOLD, G, NONE),
    POOL_NAME(ConfigKey.POOL_NAME, G, NONE),

    // PgBouncer's, not taken by pgmux yet
    AUTH_LDAP_OPTIONS("auth_ldap_options", G);

    /** Whether RELOAD applies a changed value, or it waits for a restart. */
    public enum Change { RESTART, RELOAD }

    /** How a value is written; {@link #POOL} values are core's {@link ConfigKey}'s to parse. */
    public enum Type {
        /** A whole number. */
        INT,
        /** A whole number of 0 or more. */
        COUNT,
        /** Whole seconds. */
        SECONDS,
        TEXT,
        /** Comma-separated host names or addresses, IPv4 or IPv6; {@code *} is every address (see {@link ListenAddresses}). */
        ADDRESS,
        /** 0 (off) or 1 (on), as PgBouncer writes its switches. */
        SWITCH,
        /** A file mode in octal, as chmod takes it ({@code 0777}). */
        FILE_MODE,
        /** A file name, relative to the configuration file; empty is "not set". */
        FILE,
        /**
         * {@code host:port} ({@code [v6 address]:port}; {@code *} is every IPv4 address, port 0 a free one), an
         * unresolved {@link InetSocketAddress}; empty is "off".
         */
        HOST_PORT,
        /** Comma-separated user names. */
        USERS,
        /** Comma-separated names (of startup parameters). */
        NAMES,
        AUTH_TYPE,
        TLS_MODE,
        /** PgBouncer's TLS protocol list ({@code secure}, {@code tlsv1.2,tlsv1.3}, …; see {@link TlsProtocols}), kept as written. */
        TLS_PROTOCOLS,
        /** pgmux's pin_session_state: on, off or error. */
        PIN_SESSION_STATE,
        /** auth, authpriv, daemon, user, local0 to local7. */
        SYSLOG_FACILITY,
        /** pgmux's transport: epoll, io_uring or nio. */
        TRANSPORT,
        POOL
    }

    private static final Map<String, ProxySetting> BY_NAME = new HashMap<>();

    static {
        for (ProxySetting setting : values()) {
            BY_NAME.put(setting.configName, setting);
        }
    }

    private final String configName;
    private final Type type;
    private final String defaultText;
    private final Change change;
    private final Set<Scope> pgmux;
    private final Set<Scope> pgbouncer;
    private final ConfigKey poolKey;

    ProxySetting(String configName, Type type, String defaultText, Change change, Set<Scope> pgmux,
            Set<Scope> pgbouncer) {
        this(configName, type, defaultText, change, pgmux, pgbouncer, null);
    }

    /** A pool setting under core's PgBouncer name. */
    ProxySetting(ConfigKey poolKey, Set<Scope> pgmux, Set<Scope> pgbouncer) {
        this(poolKey.pgbouncerName(), poolKey, pgmux, pgbouncer);
    }

    /** An entry's name for the pool setting {@code poolKey}. */
    ProxySetting(String configName, ConfigKey poolKey, Set<Scope> pgmux, Set<Scope> pgbouncer) {
        this(configName, Type.POOL, null, RELOAD, pgmux, pgbouncer, poolKey);
    }

    /**
     * An entry's {@code -1}, which PgBouncer reads as "not set" for query_wait_timeout and the client limits: the
     * database's or global value applies.
     */
    public static boolean notSet(ProxySetting setting, String value) {
        return (setting == QUERY_WAIT_TIMEOUT || setting == MAX_DB_CLIENT_CONNECTIONS
                || setting == MAX_USER_CLIENT_CONNECTIONS) && value.strip().equals("-1");
    }

    /** A key of PgBouncer's that pgmux does not take yet. */
    ProxySetting(String configName, Set<Scope> pgbouncer) {
        this(configName, Type.TEXT, "", RESTART, NONE, pgbouncer, null);
    }

    ProxySetting(String configName, Type type, String defaultText, Change change, Set<Scope> pgmux,
            Set<Scope> pgbouncer, ConfigKey poolKey) {
        this.configName = configName;
        this.type = type;
        this.defaultText = defaultText;
        this.change = change;
        this.pgmux = pgmux;
        this.pgbouncer = pgbouncer;
        this.poolKey = poolKey;
    }

    /** PgBouncer's name of the key (pgmux's for its own). */
    public String configName() {
        return configName;
    }

    public Type type() {
        return type;
    }

    public Change change() {
        return change;
    }

    /** The pool setting this key sets or overrides, or null for the proxy's own keys. */
    public ConfigKey poolKey() {
        return poolKey;
    }

    /** Whether pgmux takes the key in {@code scope}. */
    public boolean takenIn(Scope scope) {
        return pgmux.contains(scope);
    }

    /** Whether PgBouncer 1.25 takes the key in {@code scope}. */
    public boolean pgbouncerTakesIn(Scope scope) {
        return pgbouncer.contains(scope);
    }

    /** The default as SHOW CONFIG prints it. */
    public String defaultText() {
        return poolKey == null ? defaultText : poolText(PoolDefaults.TEXT.get(poolKey.pgbouncerName()));
    }

    /**
     * A pool setting's value, as core describes it, the way PgBouncer's SHOW CONFIG prints it: durations in seconds
     * ({@code 3600}, {@code 0.5}) rather than core's {@code 3600s}, switches as 1 or 0.
     */
    String poolText(String described) {
        if (described == null) {
            return null;
        }
        return switch (poolKey.type()) {
            case DURATION -> formatSeconds(Durations.parse(described, true));
            case BOOLEAN -> Boolean.parseBoolean(described) ? "1" : "0";
            default -> described;
        };
    }

    /** The key of this name, in any case (PgBouncer's own parser knows only lower case), or null. */
    public static ProxySetting named(String name) {
        return BY_NAME.get(name.toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * The {@code [pgbouncer]} setting pgmux takes under {@code name}, also under core's other names of a pool
     * setting (camelCase, HikariCP's); null when pgmux takes no such global setting.
     */
    public static ProxySetting global(String name) {
        ProxySetting setting = named(name);
        if (setting != null && setting.takenIn(Scope.GLOBAL)) {
            return setting;
        }
        ConfigKey key = ConfigKey.lookup(name);
        if (key != null) {
            for (ProxySetting s : values()) {
                if (s.poolKey == key && s.takenIn(Scope.GLOBAL)) {
                    return s;
                }
            }
        }
        return null;
    }

    /** The settings pgmux takes in {@code scope}, in table order ({@code GLOBAL}: SHOW CONFIG's rows). */
    public static List<ProxySetting> all(Scope scope) {
        List<ProxySetting> settings = new ArrayList<>();
        for (ProxySetting s : values()) {
            if (s.takenIn(scope)) {
                settings.add(s);
            }
        }
        return settings;
    }

    private static List<String> namesTakenIn(Scope scope) {
        return all(scope).stream().map(ProxySetting::configName).toList();
    }

    /** "unknown setting 'name'", naming the nearest {@code [pgbouncer]} setting pgmux takes. */
    public static String unknownGlobal(String name) {
        return unknown("setting", name, Scope.GLOBAL);
    }

    /** "unknown {what} 'name'", naming the nearest key pgmux takes in {@code scope}. */
    public static String unknown(String what, String name, Scope scope) {
        return UnknownSetting.message(what, name, UnknownSetting.nearest(name, namesTakenIn(scope)));
    }

    /**
     * The key {@code name} of a {@code [databases]} or {@code [users]} entry.
     *
     * @throws IllegalArgumentException naming {@code owner}, the key and the keys pgmux takes there, when pgmux
     *     does not take it there
     */
    public static ProxySetting entryKey(Scope scope, String owner, String name) {
        ProxySetting setting = named(name);
        if (setting != null && setting.takenIn(scope)) {
            return setting;
        }
        String refusal;
        if (setting == null) {
            refusal = unknown("key", name, scope);
        } else if (scope == Scope.DATABASE) {
            refusal = "unsupported key \"" + name + "\"";
        } else {
            refusal = "unknown key \"" + name + "\"";
        }
        throw new IllegalArgumentException(owner + ": " + refusal + " (supported: "
                + String.join(", ", namesTakenIn(scope)) + ")");
    }

    /**
     * An entry's value of this setting: pool_mode one of session, transaction, statement, durations seconds of 0
     * or more, the other pool settings whole numbers of 0 or more; the proxy's own settings as their type reads
     * them (returned as SHOW CONFIG would print them).
     *
     * @throws IllegalArgumentException naming {@code owner} and the key
     */
    public String checkedEntryValue(String owner, String value) {
        if (poolKey == null) {
            try {
                return format(parse(value, Path.of("")));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(owner + ": " + e.getMessage());
            }
        }
        if (poolKey.type() == ConfigKey.Type.DURATION) {
            Duration d;
            try {
                d = Durations.parse(value, true);
            } catch (IllegalArgumentException e) {
                d = Duration.ofSeconds(-1);
            }
            if (d.isNegative()) {
                throw new IllegalArgumentException(owner + ": " + configName + " must be a number of seconds, 0 or "
                        + "more, not \"" + value + "\"");
            }
            return value;
        }
        if (poolKey.type() == ConfigKey.Type.POOL_MODE) {
            try {
                PoolMode.parse(value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(owner + ": " + configName + " " + e.getMessage() + ", not \""
                        + value + "\"");
            }
            return value;
        }
        int n;
        try {
            n = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 0) {
            throw new IllegalArgumentException(owner + ": " + configName + " must be a whole number of 0 or more, "
                    + "not \"" + value + "\"");
        }
        return value;
    }

    /**
     * The value of one of the proxy's own settings as written, file names relative to the working directory.
     *
     * @throws IllegalArgumentException naming the key
     */
    public Object parse(String text) {
        return parse(text, Path.of(""));
    }

    /**
     * The value of one of the proxy's own settings as written ({@code base} resolves file names).
     *
     * @throws IllegalArgumentException naming the key
     */
    public Object parse(String text, Path base) {
        return checked(switch (type) {
            case INT, COUNT -> whole(text);
            case SECONDS -> seconds(text);
            case TEXT -> text;
            case ADDRESS -> ListenAddresses.normalized(configName, text);
            case SWITCH -> switchValue(text);
            case FILE_MODE -> fileMode(text);
            case FILE -> text.isBlank() ? null : file(text.strip(), base);
            case HOST_PORT -> hostPort(text);
            case USERS, NAMES -> users(text);
            case AUTH_TYPE -> AuthType.fromConfig(text);
            case TLS_MODE -> {
                try {
                    yield TlsMode.fromConfig(text);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(configName + ": " + e.getMessage(), e);
                }
            }
            case TLS_PROTOCOLS -> {
                TlsProtocols.parse(configName, text);
                yield text;
            }
            case PIN_SESSION_STATE -> PinSessionState.fromConfig(text);
            case SYSLOG_FACILITY -> SyslogFacility.fromConfig(text);
            case TRANSPORT -> TransportKind.fromConfig(text);
            case POOL -> throw new IllegalStateException(configName + " is core's to parse");
        });
    }

    /**
     * A relative file name is taken from {@code base}, the ini file's directory; a file to read that is not there
     * but in the working directory, where PgBouncer takes every relative name from, is that one.
     */
    private Path file(String name, Path base) {
        Path inBase = base.resolve(name);
        if (this == LOGFILE || this == PIDFILE || Path.of(name).isAbsolute() || Files.exists(inBase)) {
            return inBase;
        }
        Path inWorkingDirectory = Path.of(name).toAbsolutePath();
        return Files.exists(inWorkingDirectory) ? inWorkingDirectory : inBase;
    }

    /** {@code value}, after the checks its type and its range ({@link SettingRange}) ask for. */
    Object checked(Object value) {
        SettingRange.check(this, value);
        if (type == Type.COUNT && (Integer) value < 0) {
            throw new IllegalArgumentException(configName + " must be 0 or more, not " + value);
        }
        return value;
    }

    /** A value of the proxy's own settings as SHOW CONFIG prints it. */
    String format(Object value) {
        if (value == null) {
            return "";
        }
        return switch (type) {
            case SECONDS -> formatSeconds((Duration) value);
            case SWITCH -> (Boolean) value ? "1" : "0";
            case FILE_MODE -> "0" + Integer.toOctalString((Integer) value);
            case HOST_PORT -> {
                InetSocketAddress address = (InetSocketAddress) value;
                String host = address.getHostString();
                yield (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
            }
            case USERS, NAMES -> {
                @SuppressWarnings("unchecked")
                List<String> users = (List<String>) value;
                yield String.join(",", users);
            }
            case AUTH_TYPE -> ((AuthType) value).configName();
            case TLS_MODE -> ((TlsMode) value).configName();
            case PIN_SESSION_STATE -> ((PinSessionState) value).configName();
            case SYSLOG_FACILITY -> ((SyslogFacility) value).configName();
            case TRANSPORT -> ((TransportKind) value).configName();
            default -> String.valueOf(value);
        };
    }

    /** Seconds as PgBouncer writes them, fractions allowed ({@code 0.5}); a unit ({@code 500ms}) too. */
    private Duration seconds(String text) {
        Duration d;
        try {
            d = Durations.parse(text, true);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(configName + " must be a number of seconds, not \"" + text + "\"");
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException(configName + " must be 0 or more seconds, not \"" + text + "\"");
        }
        return d;
    }

    private static String formatSeconds(Duration d) {
        return d.toNanos() % 1_000_000_000L == 0 ? String.valueOf(d.toSeconds())
                : java.math.BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString();
    }

    private int whole(String text) {
        try {
            return Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(configName + " must be a whole number, not \"" + text + "\"");
        }
    }

    private InetSocketAddress hostPort(String text) {
        String value = text.strip();
        if (value.isEmpty()) {
            return null;
        }
        int colon = value.lastIndexOf(':');
        String host = colon < 0 ? "" : value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = colon < 0 ? -1 : Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isEmpty() || port < 0 || port > 65535) {
            throw new IllegalArgumentException(configName + " must be host:port (port 0 to 65535), or empty for off,"
                    + " not \"" + text + "\"");
        }
        return InetSocketAddress.createUnresolved(host.equals("*") ? "0.0.0.0" : host, port);
    }

    /** PgBouncer reads its switches as numbers: 0 is off, any other number on. */
    private boolean switchValue(String text) {
        try {
            return Integer.parseInt(text.strip()) != 0;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(configName + " must be 0 or 1, not \"" + text + "\"");
        }
    }

    private int fileMode(String text) {
        try {
            int mode = Integer.parseInt(text.strip(), 8);
            if (mode >= 0 && mode <= 0777) {
                return mode;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(configName + " must be a file mode in octal (0000 to 0777), not \"" + text
                + "\"");
    }

    private static List<String> users(String commaSeparated) {
        List<String> users = new ArrayList<>();
        for (String name : commaSeparated.split(",")) {
            if (!name.isBlank()) {
                users.add(name.strip());
            }
        }
        return List.copyOf(users);
    }

    /** Core's proxy defaults as SHOW CONFIG prints them; a holder, so the table does not wait for a pool. */
    private static final class PoolDefaults {
        static final Map<String, String> TEXT = PoolConfig.proxyDefaults().build().describe();
    }
}
