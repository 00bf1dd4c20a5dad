package io.pgmux.proxy.config;

import io.pgmux.proxy.config.ProxySetting.Scope;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code [users]} entry of pgbouncer.ini: {@code pool_mode}, {@code pool_size}, {@code reserve_pool_size} and
 * {@code max_user_connections}, which win over the database's and the global ones, as in PgBouncer.
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
            poolSettings.put(setting.poolKey().pgbouncerName(), setting.checkedEntryValue(owner, v));
        });
        return new UserEntry(Collections.unmodifiableMap(poolSettings));
    }
}
