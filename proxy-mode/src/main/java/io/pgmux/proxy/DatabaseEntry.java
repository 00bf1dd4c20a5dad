package io.pgmux.proxy;

import io.pgmux.proxy.config.ConnectString;
import io.pgmux.proxy.config.PinSessionState;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.Scope;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.fleet.FleetSetting;
import io.pgmux.proxy.server.LoadBalanceHosts;
import io.pgmux.proxy.server.ReadRouting;
import io.pgmux.proxy.server.ServerPasswordSource;
import io.pgmux.proxy.server.ServerSetup;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.TargetSessionAttrs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A {@code [databases]} entry of pgbouncer.ini, {@code host=… port=… dbname=… user=… password=… sslmode=…}
 * (host a list {@code a,b,c} with one port or one per host, load_balance_hosts, pgmux's target_session_attrs)
 * and pool settings, values optionally single-quoted: where the database lives, and the pool settings of its
 * own under the names of the global settings they override (pool_size is default_pool_size; reserve_pool,
 * PgBouncer's alias, is reserve_pool_size), pgmux's pin_session_state, auth_user, auth_query, auth_dbname,
 * max_db_client_connections, fleet and fleet_max_servers (both or neither), and what each new server
 * connection gets: client_encoding, datestyle, timezone and
 * application_name (taken by PgBouncer 1.25, not in its documentation) as startup parameters, connect_query run
 * after its login; pgmux's server_password_file or server_password_command, read at each server login instead
 * of password=; pgmux's read_routing with read_your_writes, replica_wait_timeout, replica_check_period and
 * replica_max_lag.
 *
 * @param poolSettings setting name to value as written, for {@code ProxyBuilder.databaseSetting}
 */
public record DatabaseEntry(ServerTarget target, Map<String, String> poolSettings) {

    /**
     * dbname defaults to {@code name}, host to PgBouncer's default, the Unix socket in unix_socket_dir,
     * port to 5432, load_balance_hosts to round-robin,
     * target_session_attrs to any, sslmode (also spelled server_tls_sslmode)
     * to the proxy's server_tls_sslmode.
     *
     * @throws IllegalArgumentException for a key pgmux does not take there (PgBouncer keys pgmux does not
     *     implement yet, such as connect_query, are named) or a malformed value
     */
    public static DatabaseEntry parse(String name, String connectString) {
        return parse(name, connectString, Path.of(""));
    }

    /** As {@link #parse(String, String)}, a relative server_password_file looked up in {@code base}. */
    public static DatabaseEntry parse(String name, String connectString, Path base) {
        String owner = "database " + name;
        String host = null;
        String port = ProxySetting.PORT.defaultText();
        LoadBalanceHosts loadBalance = LoadBalanceHosts.fromConfig(ProxySetting.LOAD_BALANCE_HOSTS.defaultText());
        TargetSessionAttrs sessionAttrs = TargetSessionAttrs.fromConfig(ProxySetting.TARGET_SESSION_ATTRS.defaultText());
        String dbname = name;
        String user = null;
        String password = null;
        TlsMode tls = null;
        Map<String, String> startupParameters = new LinkedHashMap<>();
        String connectQuery = null;
        Path passwordFile = null;
        String passwordCommand = null;
        Map<String, String> poolSettings = new LinkedHashMap<>();
        Map<ProxySetting, String> routing = new java.util.EnumMap<>(ProxySetting.class);
        String fleet = null;
        String fleetMaxServers = null;
        for (Map.Entry<String, String> e : ConnectString.parse(owner, connectString).entrySet()) {
            ProxySetting setting = ProxySetting.entryKey(Scope.DATABASE, owner, e.getKey());
            String v = e.getValue();
            switch (setting) {
                case HOST -> host = v;
                case PORT -> port = v;
                case LOAD_BALANCE_HOSTS -> loadBalance = checked(owner, () -> LoadBalanceHosts.fromConfig(v));
                case TARGET_SESSION_ATTRS -> sessionAttrs = checked(owner, () -> TargetSessionAttrs.fromConfig(v));
                case DBNAME -> dbname = v;
                case USER -> user = v;
                case PASSWORD -> password = v;
                case SSLMODE, SERVER_TLS_SSLMODE -> tls = TlsMode.fromConfig(v);
                case CLIENT_ENCODING, DATESTYLE, TIMEZONE, APPLICATION_NAME -> startupParameters.put(setting.configName(), v);
                case CONNECT_QUERY -> connectQuery = v;
                case READ_ROUTING, READ_YOUR_WRITES, REPLICA_WAIT_TIMEOUT, REPLICA_CHECK_PERIOD, REPLICA_MAX_LAG ->
                        routing.put(setting, v);
                case SERVER_PASSWORD_FILE -> passwordFile = checked(owner, () -> (Path) setting.parse(v, base));
                case SERVER_PASSWORD_COMMAND -> passwordCommand = v;
                case PIN_SESSION_STATE -> poolSettings.put(setting.configName(), checked(owner, () -> {
                    PinSessionState.fromConfig(v);
                    return v;
                }));
                case AUTH_USER, AUTH_QUERY, AUTH_DBNAME -> poolSettings.put(setting.configName(), v);
                case FLEET -> fleet = v;
                case FLEET_MAX_SERVERS -> fleetMaxServers = v;
                case MAX_DB_CLIENT_CONNECTIONS -> {
                    if (!ProxySetting.notSet(setting, v)) {
                        poolSettings.put(setting.configName(), setting.checkedEntryValue(owner, v));
                    }
                }
                default -> {
                    if (!ProxySetting.notSet(setting, v)) {
                        String checked = setting.checkedEntryValue(owner, v);
                        poolSettings.put(setting.poolKey().pgbouncerName(), checked);
                    }
                }
            }
        }
        FleetSetting fleetSetting = FleetSetting.of(owner, fleet, fleetMaxServers);
        if (fleetSetting != null) {
            poolSettings.put(FleetSetting.FLEET, fleetSetting.name());
            poolSettings.put(FleetSetting.FLEET_MAX_SERVERS, Integer.toString(fleetSetting.maxServers()));
        }
        ServerPasswordSource passwordSource = passwordSource(owner, password, passwordFile, passwordCommand);
        String hosts = host;
        String ports = port;
        ReadRouting readRouting = readRouting(owner, routing, sessionAttrs);
        if (readRouting != null && sessionAttrs == TargetSessionAttrs.ANY) {
            // the entry's own pool is the primary's: its logins look for the host not in recovery
            sessionAttrs = TargetSessionAttrs.PRIMARY;
        }
        return new DatabaseEntry(new ServerTarget(checked(owner, () -> ServerTarget.hostList(hosts, ports)), dbname,
                user, password, tls, loadBalance, sessionAttrs, new ServerSetup(startupParameters, connectQuery),
                passwordSource, readRouting), Collections.unmodifiableMap(poolSettings));
    }

    /**
     * pgmux's read_routing and the keys that go with it; null when off. The keys of read_routing = replicas
     * without it, and a target_session_attrs that asks for something other than the primary, are refused rather
     * than ignored.
     */
    private static ReadRouting readRouting(String owner, Map<ProxySetting, String> routing,
            TargetSessionAttrs sessionAttrs) {
        String mode = routing.get(ProxySetting.READ_ROUTING);
        boolean on = mode != null && checked(owner, () -> ReadRouting.replicas(mode));
        if (!on) {
            for (ProxySetting key : routing.keySet()) {
                if (key != ProxySetting.READ_ROUTING) {
                    throw new IllegalArgumentException(owner + ": " + key.configName()
                            + " needs read_routing=replicas");
                }
            }
            return null;
        }
        if (sessionAttrs != TargetSessionAttrs.ANY && sessionAttrs != TargetSessionAttrs.PRIMARY
                && sessionAttrs != TargetSessionAttrs.READ_WRITE) {
            throw new IllegalArgumentException(owner + ": read_routing=replicas sends writes to the primary:"
                    + " target_session_attrs=" + sessionAttrs + " contradicts it");
        }
        return checked(owner, () -> new ReadRouting(
                (Boolean) ProxySetting.READ_YOUR_WRITES.parse(routing.getOrDefault(ProxySetting.READ_YOUR_WRITES,
                        ProxySetting.READ_YOUR_WRITES.defaultText())),
                (Duration) ProxySetting.REPLICA_WAIT_TIMEOUT.parse(routing.getOrDefault(
                        ProxySetting.REPLICA_WAIT_TIMEOUT, ProxySetting.REPLICA_WAIT_TIMEOUT.defaultText())),
                (Duration) ProxySetting.REPLICA_CHECK_PERIOD.parse(routing.getOrDefault(
                        ProxySetting.REPLICA_CHECK_PERIOD, ProxySetting.REPLICA_CHECK_PERIOD.defaultText())),
                (Duration) ProxySetting.REPLICA_MAX_LAG.parse(routing.getOrDefault(
                        ProxySetting.REPLICA_MAX_LAG, ProxySetting.REPLICA_MAX_LAG.defaultText()))));
    }

    /**
     * The entry's own server password source, its command's output kept for the global
     * server_password_command_cache_time; with password= too, the entry is refused rather than one of them
     * silently ignored.
     */
    private static ServerPasswordSource passwordSource(String owner, String password, Path file, String command) {
        ServerPasswordSource source = checked(owner, () -> ServerPasswordSource.of(file, command, null));
        if (source != null && password != null) {
            throw new IllegalArgumentException(owner + ": password and " + (file != null
                    ? ServerPasswordSource.FILE_KEY : ServerPasswordSource.COMMAND_KEY) + " cannot be used together:"
                    + " each gives the server password; keep one");
        }
        return source;
    }

    private static <T> T checked(String owner, Supplier<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(owner + ": " + e.getMessage());
        }
    }
}
