package io.pgmux.proxy.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code [users]} entry of pgbouncer.ini: pool settings ({@code pool_mode}, {@code pool_size},
 * {@code reserve_pool_size}, {@code max_user_connections}, {@code query_wait_timeout}), which win over the
 * database's and the global ones, and the client timeouts ({@code query_timeout}, {@code transaction_timeout},
 * {@code idle_transaction_timeout}, {@code client_idle_timeout}), which win over the global ones where above 0, as
 * in PgBouncer.
 *
 * @param poolSettings under the names of the global settings they override, to the value as written
 */
public record UserEntry(Map<String, String> poolSettings) {

    /** @throws IllegalArgumentException for any other key, so that no entry is half applied, or a malformed value */
    public static UserEntry parse(String user, String value) {
        String owner = "user " + user;
        Map<String, String> poolSettings = new LinkedHashMap<>();
        ConnectString.parse(owner, value).forEach((key, v) -> {
            ProxySetting setting = ProxySetting.entryKey(Scope.USER, owner, key);
            if (!ProxySetting.notSet(setting, v)) {
                String checked = setting.checkedEntryValue(owner, v);
                poolSettings.put(setting.poolKey() != null ? setting.poolKey().pgbouncerName() : setting.configName(),
                        checked);
            }
        });
        return new UserEntry(Collections.unmodifiableMap(poolSettings));
    }
}
