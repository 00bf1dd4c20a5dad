package io.pgmux.proxy;

import io.netty.handler.ssl.SslContext;
import io.pgmux.core.config.PoolOverrides;
import io.pgmux.proxy.auth.ScramSecret;
import io.pgmux.proxy.auth.UserList;
import io.pgmux.proxy.auth.UserSecrets;
import io.pgmux.proxy.client.ClientAuthentication;
import io.pgmux.proxy.client.ClientSettings;
import io.pgmux.proxy.client.ClientTimeouts;
import io.pgmux.proxy.client.ClientTls;
import io.pgmux.proxy.server.PeerEntry;
import io.pgmux.proxy.config.PinSessionState;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.TlsCipherSuites;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.config.TlsProtocols;
import io.pgmux.proxy.fleet.FleetSetting;
import io.pgmux.proxy.server.AutoDatabases;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.ServerTls;
import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * Everything one proxy runs with, immutable: the {@code [pgbouncer]} settings ({@link ProxySettings}, keyed by the
 * {@link ProxySetting} table), the per-database and per-user overrides, the {@code [databases]} and {@code [users]}
 * entries' own settings and the users' secrets. The builder makes the first; RELOAD and SET each make the next from
 * the one in effect, and {@link SettingsApply} puts it into effect.
 *
 * @param databases the {@code [databases]} entries as configured, the {@code *} entry included
 * @param maxClientsByDatabase the entries' own max_db_client_connections
 * @param maxClientsByUser the entries' own max_user_client_connections
 * @param authByDatabase the entries' own auth_user, auth_query and auth_dbname
 * @param fleetByDatabase the entries' fleets (fleet and fleet_max_servers)
 * @param userLimits the {@code [users]} entries' own client timeouts
 * @param peers the {@code [peers]} entries by peer_id
 * @param clientTlsContext TLS for clients made by the caller in code, or null for the client_tls_* files'
 * @param configDirectory where SET resolves relative file names
 */
record ProxyConfiguration(ProxySettings settings, PoolOverrides overrides, Map<String, ServerTarget> databases,
        Map<String, PinSessionState> pinSessionStateByDatabase, Map<String, Integer> maxClientsByDatabase,
        Map<String, Integer> maxClientsByUser, Map<String, Map<ProxySetting, String>> authByDatabase,
        Map<String, FleetSetting> fleetByDatabase, Map<String, ClientTimeouts.Limits> userLimits, UserSecrets users,
        Map<Integer, PeerEntry> peers, SslContext clientTlsContext, Path configDirectory) {

    ProxyConfiguration {
        // refused when loaded, reloaded or SET rather than at the first server login
        ServerConnectors.globalPassword(settings);
        // and so, after a SET peer_id, is a [peers] entry that now names this process under another id
        for (PeerEntry peer : peers.values()) {
            peer.checkNotSelf(settings.get(ProxySetting.PEER_ID), settings.get(ProxySetting.LISTEN_ADDR),
                    settings.get(ProxySetting.LISTEN_PORT), settings.get(ProxySetting.UNIX_SOCKET_DIR));
        }
    }

    /**
     * This configuration with what RELOAD applies taken from {@code fresh}: the settings {@link ProxySetting} marks
     * as reloadable, the entries, and the users (keeping the SCRAM keys of those whose verifier did not change).
     */
    ProxyConfiguration reloaded(ProxyConfiguration fresh) {
        return new ProxyConfiguration(settings.reloaded(fresh.settings), fresh.overrides, fresh.databases,
                fresh.pinSessionStateByDatabase, fresh.maxClientsByDatabase, fresh.maxClientsByUser,
                fresh.authByDatabase, fresh.fleetByDatabase, fresh.userLimits, carryKeys(users, fresh.users),
                fresh.peers,
                fresh.clientTlsContext, configDirectory);
    }

    /**
     * This configuration with one global setting changed, as the admin console's SET changes it; SET auth_file
     * reads the file.
     *
     * @throws IllegalArgumentException for a value the setting cannot take
     * @throws IOException when the auth file cannot be read
     */
    ProxyConfiguration with(ProxySetting setting, String value) throws IOException {
        ProxySettings next = settings.with(setting, value, configDirectory);
        UserSecrets nextUsers = setting == ProxySetting.AUTH_FILE ? usersOf(next) : users;
        return new ProxyConfiguration(next, overrides, databases, pinSessionStateByDatabase, maxClientsByDatabase,
                maxClientsByUser, authByDatabase, fleetByDatabase, userLimits, nextUsers, peers, clientTlsContext,
                configDirectory);
    }

    /**
     * The users of the auth file read again (auth_file_check_period saw it change), with the SCRAM keys of those
     * whose verifier did not change.
     *
     * @throws IOException when it cannot be read
     * @throws IllegalArgumentException naming the file and line that is malformed
     */
    UserSecrets authFileReadAgain() throws IOException {
        return usersOf(settings);
    }

    /** This configuration with {@code fresh} as its users. */
    ProxyConfiguration withUsers(UserSecrets fresh) {
        return new ProxyConfiguration(settings, overrides, databases, pinSessionStateByDatabase, maxClientsByDatabase,
                maxClientsByUser, authByDatabase, fleetByDatabase, userLimits, fresh, peers, clientTlsContext,
                configDirectory);
    }

    private UserSecrets usersOf(ProxySettings next) throws IOException {
        Path file = next.get(ProxySetting.AUTH_FILE);
        return carryKeys(users, file == null ? UserSecrets.of(Map.of()) : UserList.load(file));
    }

    /** The databases with server_tls_sslmode applied, and unix_socket_dir to those without host. */
    Map<String, ServerTarget> resolved() {
        TlsMode defaultMode = settings.get(ProxySetting.SERVER_TLS_SSLMODE);
        String socketDir = settings.get(ProxySetting.UNIX_SOCKET_DIR);
        Map<String, ServerTarget> running = new LinkedHashMap<>();
        databases.forEach((name, target) -> running.put(name,
                target.withDefaultTlsMode(defaultMode).withSocketDirectory(socketDir)));
        return Map.copyOf(running);
    }

    /** The databases clients may connect to by name: the resolved ones but the {@code *} entry. */
    Map<String, ServerTarget> listed() {
        return AutoDatabases.listed(resolved());
    }

    /**
     * The server TLS of the server_tls_* settings, for the sslmodes the databases use; its files are read now.
     *
     * @param blockingWork where its contexts are built
     * @throws IllegalArgumentException naming the setting whose file cannot be used
     */
    ServerTls serverTls(Executor blockingWork) {
        Set<TlsMode> modes = EnumSet.noneOf(TlsMode.class);
        resolved().values().forEach(target -> modes.add(target.tlsMode()));
        return ServerTls.of(blockingWork, modes, settings.get(ProxySetting.SERVER_TLS_CA_FILE),
                settings.get(ProxySetting.SERVER_TLS_CERT_FILE), settings.get(ProxySetting.SERVER_TLS_KEY_FILE),
                TlsProtocols.parse(ProxySetting.SERVER_TLS_PROTOCOLS.configName(),
                        settings.get(ProxySetting.SERVER_TLS_PROTOCOLS)),
                TlsCipherSuites.parse("server", settings.get(ProxySetting.SERVER_TLS_CIPHERS),
                        settings.get(ProxySetting.SERVER_TLS13_CIPHERS)));
    }

    /**
     * The client TLS of the client_tls_* settings (its files read now), or of the context given in code.
     *
     * @throws IllegalArgumentException naming the setting whose file cannot be used
     */
    ClientTls clientTls() {
        return clientTlsContext != null
                ? ClientTls.of(settings.get(ProxySetting.CLIENT_TLS_SSLMODE), clientTlsContext)
                : ClientTls.of(settings);
    }

    /** How clients log in: auth_type, the hba and ident files (read now), auth_query. */
    ClientAuthentication authentication() {
        return ClientAuthentication.of(settings, authByDatabase);
    }

    /** The settings clients read. */
    ClientSettings clientSettings() {
        return ClientSettings.of(settings, pinSessionStateByDatabase, userLimits);
    }

    /**
     * {@code fresh}, the auth file read again, with the SCRAM passthrough keys clients left on an unchanged
     * verifier kept.
     */
    private static UserSecrets carryKeys(UserSecrets previous, UserSecrets fresh) {
        if (fresh instanceof UserList list) {
            for (String user : list.users()) {
                if (list.find(user).orElse(null) instanceof ScramSecret now
                        && previous.find(user).orElse(null) instanceof ScramSecret before) {
                    now.keepKeysOf(before);
                }
            }
        }
        return fresh;
    }
}
