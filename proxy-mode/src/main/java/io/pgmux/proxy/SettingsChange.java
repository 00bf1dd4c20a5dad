package io.pgmux.proxy;

import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.server.ServerTarget;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one RELOAD or SET changes, by comparing the configuration in effect with the next: what takes a restart,
 * whether the server connections must be renewed for new server TLS settings, and the databases added, changed
 * and removed.
 *
 * @param restartOnly the settings asked for that wait for a restart to change, by name
 * @param serverTlsChanged a server_tls_* setting changed while TLS to servers was or is allowed
 * @param added the databases clients may connect to now and could not before
 * @param changed the databases whose target changed
 * @param removed the databases clients may connect to no more
 */
record SettingsChange(List<String> restartOnly, boolean serverTlsChanged, List<String> added, List<String> changed,
        List<String> removed) {
    /** Every server_tls_* setting, by the prefix admin SET goes by too. */
    private static final List<ProxySetting> SERVER_TLS = Arrays.stream(ProxySetting.values())
            .filter(s -> s.configName().startsWith("server_tls")).toList();

    /**
     * @param requested the settings as loaded or asked for, before {@code after} kept the restart-only ones in
     *     effect
     */
    static SettingsChange between(ProxyConfiguration before, ProxyConfiguration after, ProxySettings requested) {
        List<String> restartOnly = new ArrayList<>();
        before.settings().restartOnlyChanges(requested).forEach(s -> restartOnly.add(s.configName()));
        Map<String, ServerTarget> was = before.listed();
        Map<String, ServerTarget> is = after.listed();
        List<String> added = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        was.forEach((name, target) -> {
            ServerTarget now = is.get(name);
            if (now == null) {
                removed.add(name);
            } else if (!now.equals(target)) {
                changed.add(name);
            }
        });
        is.keySet().stream().filter(name -> !was.containsKey(name)).forEach(added::add);
        return new SettingsChange(List.copyOf(restartOnly), serverTlsChanged(before.settings(), after.settings()),
                List.copyOf(added), List.copyOf(changed), List.copyOf(removed));
    }

    /**
     * As PgBouncer: a change to a server_tls_* setting while TLS to servers was or is allowed renews every server
     * connection ({@code close_needed}), so that none goes on under the old, perhaps weaker, TLS settings.
     */
    private static boolean serverTlsChanged(ProxySettings before, ProxySettings after) {
        boolean used = before.get(ProxySetting.SERVER_TLS_SSLMODE) != TlsMode.DISABLE
                || after.get(ProxySetting.SERVER_TLS_SSLMODE) != TlsMode.DISABLE;
        return used && SERVER_TLS.stream().anyMatch(s -> !Objects.equals(before.get(s), after.get(s)));
    }
}
