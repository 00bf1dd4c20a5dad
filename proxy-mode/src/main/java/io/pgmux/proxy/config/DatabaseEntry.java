package io.pgmux.proxy.config;

import io.pgmux.proxy.client.PinSessionState;
import io.pgmux.proxy.config.ProxySetting.Scope;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.TlsMode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code [databases]} entry of pgbouncer.ini, {@code host=… port=… dbname=… user=… password=… sslmode=…}
 * and pool settings, values optionally single-quoted: where the database lives, and the pool settings of its
 * own under the names of the global settings they override (pool_size is default_pool_size; reserve_pool,
 * PgBouncer's alias, is reserve_pool_size), pgmux's pin_session_state, and auth_user, auth_query, auth_dbname.
 *
 * @param poolSettings setting name to value as written, for {@code PgMuxProxy.Builder.databaseSetting}
 */
public record DatabaseEntry(ServerTarget target, Map<String, String> poolSettings) {

    /**
     * dbname defaults to {@code name}, host to 127.0.0.1, port to 5432, sslmode (also spelled server_tls_sslmode)
     * to the proxy's server_tls_sslmode.
     *
     * @throws IllegalArgumentException for a key pgmux does not take there (PgBouncer keys pgmux does not
     *     implement yet, such as connect_query, are named) or a malformed value
     */
    public static DatabaseEntry parse(String name, String connectString) {
        String owner = "database " + name;
        String host = ProxySetting.HOST.defaultText();
        int port = Integer.parseInt(ProxySetting.PORT.defaultText());
        String dbname = name;
        String user = null;
        String password = null;
        TlsMode tls = null;
        Map<String, String> poolSettings = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : ConnectString.parse(owner, connectString).entrySet()) {
            ProxySetting setting = ProxySetting.entryKey(Scope.DATABASE, owner, e.getKey());
            String v = e.getValue();
            switch (setting) {
                case HOST -> host = v;
                case PORT -> {
                    try {
                        port = Integer.parseInt(v);
                    } catch (NumberFormatException ex) {
                        throw new IllegalArgumentException(owner + ": port must be a number");
                    }
                }
                case DBNAME -> dbname = v;
                case USER -> user = v;
                case PASSWORD -> password = v;
                case SSLMODE, SERVER_TLS_SSLMODE -> tls = TlsMode.fromConfig(v);
                case PIN_SESSION_STATE -> poolSettings.put(setting.configName(), checkedPinSessionState(owner, v));
                case AUTH_USER, AUTH_QUERY, AUTH_DBNAME -> poolSettings.put(setting.configName(), v);
                default -> {
                    if (!ProxySetting.notSet(setting, v)) {
                        String checked = setting.checkedEntryValue(owner, v);
                        poolSettings.put(setting.poolKey().pgbouncerName(), checked);
                    }
                }
            }
        }
        return new DatabaseEntry(new ServerTarget(host, port, dbname, user, password, tls),
                Collections.unmodifiableMap(poolSettings));
    }

    private static String checkedPinSessionState(String owner, String value) {
        try {
            PinSessionState.fromConfig(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(owner + ": " + e.getMessage());
        }
        return value;
    }
}
