package io.pgmux.proxy;

import io.pgmux.core.config.UnknownSetting;
import io.pgmux.proxy.config.IniFile;
import io.pgmux.proxy.server.PeerEntry;
import io.pgmux.proxy.config.ProcessSettings;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.Scope;
import io.pgmux.proxy.config.UserEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configures a proxy from a pgbouncer.ini-shaped file: {@code [databases]} entries ({@link DatabaseEntry}),
 * {@code [users]} entries ({@link UserEntry}) and the {@code [pgbouncer]} settings {@link ProxySetting} lists as
 * taken globally. logfile, pidfile, verbose and the syslog keys are the standalone process's ({@link #loadForProcess},
 * {@link #processSettings}). A key PgBouncer takes and pgmux takes without effect is named in a line when it is set
 * to other than its default; an unknown key and auth_ldap_options are refused. {@code [peers]} entries are
 * PgBouncer's peering ({@link PeerEntry}). {@code %include file} reads
 * another file in place (see {@link IniFile}). Relative file names (auth_file, server_tls_*_file, logfile, pidfile)
 * are resolved against the file's directory. A value that cannot be used is refused naming the file and line that
 * set it, as {@link IniFile} names a malformed line.
 */
public final class ProxyConfigLoader {
    private static final Logger log = LoggerFactory.getLogger(ProxyConfigLoader.class);
    private static final String JVM_RESOLVES = "host names are resolved and cached by the JVM"
            + " (networkaddress.cache.ttl and networkaddress.cache.negative.ttl)";
    /** PgBouncer's keys pgmux takes without effect, and why: one set otherwise is named in a line at every load. */
    private static final Map<ProxySetting, String> WITHOUT_EFFECT = Map.ofEntries(
            Map.entry(ProxySetting.TRACK_EXTRA_PARAMETERS, "pgmux follows every parameter a client sets"),
            Map.entry(ProxySetting.SERVER_ROUND_ROBIN,
                    "an idle server on the client's own event loop is handed out first"),
            Map.entry(ProxySetting.PKT_BUF, "Netty sizes its buffers itself"),
            Map.entry(ProxySetting.SBUF_LOOPCNT, "Netty bounds what one event loop reads per socket itself"),
            Map.entry(ProxySetting.DNS_MAX_TTL, JVM_RESOLVES),
            Map.entry(ProxySetting.DNS_NXDOMAIN_TTL, JVM_RESOLVES),
            Map.entry(ProxySetting.DNS_ZONE_CHECK_PERIOD, JVM_RESOLVES),
            Map.entry(ProxySetting.RESOLV_CONF, JVM_RESOLVES),
            Map.entry(ProxySetting.JOB_NAME, "it names PgBouncer's Windows service"),
            Map.entry(ProxySetting.SERVICE_NAME, "it names PgBouncer's Windows service"));

    private static final String MAIN_SECTION = "pgbouncer";
    /** PgBouncer's sections. */
    private static final List<String> SECTIONS = List.of(MAIN_SECTION, "databases", "users", "peers");

    private ProxyConfigLoader() {
    }

    public static ProxyBuilder load(Path file) throws IOException {
        return load(file, false);
    }

    private static ProxyBuilder load(Path file, boolean standalone) throws IOException {
        IniFile ini = IniFile.load(file);
        Path base = file.toAbsolutePath().getParent();
        ProxyBuilder builder = configure(ini, base, standalone, file.toAbsolutePath());
        return builder.reloadFromFile(conffile -> load(conffile, standalone));
    }

    /** @param base where relative file names (auth_file, server_tls_*_file) are looked up */
    public static ProxyBuilder configure(IniFile ini, Path base) {
        return configure(ini, base, false, null);
    }

    /**
     * @param standalone whether the standalone process takes the {@link #PROCESS_KEYS}
     * @param file the file read, conffile's default; null when the ini was not read from a file
     */
    private static ProxyBuilder configure(IniFile ini, Path base, boolean standalone, Path file) {
        ProxyBuilder builder = PgMuxProxy.builder();
        refuseUnknownSections(ini, file);
        refuseLdap(ini);
        Map<String, String> databases = ini.section("databases");
        if (databases.isEmpty()) {
            throw new IllegalArgumentException(inFile(file) + "the [databases] section is missing or empty");
        }
        databases.forEach((name, value) -> at(ini, "databases", name, () -> {
            DatabaseEntry entry = DatabaseEntry.parse(name, value, base);
            builder.database(name, entry.target());
            entry.poolSettings().forEach((key, v) -> builder.databaseSetting(name, key, v));
        }));
        ini.section("users").forEach((user, value) -> at(ini, "users", user, () -> {
            UserEntry entry = UserEntry.parse(user, value);
            builder.user(user);
            entry.poolSettings().forEach((key, v) -> builder.userSetting(user, key, v));
        }));
        // PgBouncer's default, which a builder in code does not share
        builder.set(ProxySetting.UNIX_SOCKET_DIR.configName(), ProxySetting.UNIX_SOCKET_DIR.defaultText(), base);
        if (file != null) {
            builder.set(ProxySetting.CONFFILE.configName(), file.toString(), base);
        }
        ini.section("pgbouncer").forEach((key, value) -> {
            if (ProxySetting.named(key) == ProxySetting.USER) {
                at(ini, "pgbouncer", key, () -> requireOwnUser(key, value));
            } else if (!standalone && isProcessKey(key)) {
                log.warn("pgbouncer.ini setting {} is the standalone proxy's and is ignored by an embedded proxy", key);
            } else if (ProxySetting.global(key) != null) {
                at(ini, "pgbouncer", key, () -> builder.set(key, value, base));
                ProxySetting setting = ProxySetting.named(key);
                String why = WITHOUT_EFFECT.get(setting);
                if (why != null
                        && !Objects.equals(setting.parse(value, base), setting.parse(setting.defaultText(), base))) {
                    log.info("pgbouncer.ini setting {} = {} has no effect in pgmux: {}", key, value, why);
                }
            } else if (!isPgBouncersDefault(key, value)) {
                // PgBouncer 1.25 stops at a key it does not take there ("unknown parameter: pgbouncer/…"), a
                // [databases] or [users] key too
                at(ini, "pgbouncer", key, () -> {
                    throw new IllegalArgumentException(ProxySetting.unknown("setting", key, Scope.GLOBAL)
                            + (ProxySetting.named(key) != null ? " in [pgbouncer]: it is a [databases] or [users] key"
                            : ""));
                });
            }
        });
        requireMainSection(ini, file);
        peers(ini, builder);
        return builder;
    }

    /**
     * A section PgBouncer does not know stops it ("invalid section"), and so does a file without [pgbouncer] ("main
     * section missing"): a misspelled [pgbouncer] would otherwise start the proxy on the defaults, elsewhere than the
     * operator believes it listens.
     */
    private static void refuseUnknownSections(IniFile ini, Path file) {
        ini.headers().forEach((name, place) -> {
            if (!SECTIONS.contains(name)) {
                String nearest = UnknownSetting.nearest(name, SECTIONS);
                throw new IllegalArgumentException(place + ": unknown section [" + name + "]"
                        + (nearest != null ? " (did you mean [" + nearest + "]?)" : "")
                        + ": a pgbouncer.ini has [pgbouncer], [databases], [users] and [peers]");
            }
        });
    }

    /** As PgBouncer, which finds it missing at the end of the file, after any other error. */
    private static void requireMainSection(IniFile ini, Path file) {
        if (!ini.headers().containsKey(MAIN_SECTION)) {
            throw new IllegalArgumentException(inFile(file) + "the [pgbouncer] section is missing: PgBouncer refuses"
                    + " such a file, and pgmux does not start on the defaults in its place");
        }
    }

    /** {@code "file: "}, to begin an error about the whole file; empty for an ini not read from a file. */
    private static String inFile(Path file) {
        return file == null ? "" : file + ": ";
    }

    /**
     * Whether {@code key} is one PgBouncer takes in [pgbouncer] and pgmux does not (auth_ldap_options, whose value
     * {@link #refuseLdap} refuses), left empty: PgBouncer's default, which asks for nothing.
     */
    private static boolean isPgBouncersDefault(String key, String value) {
        ProxySetting setting = ProxySetting.named(key);
        return setting != null && setting.pgbouncerTakesIn(Scope.GLOBAL) && value.isBlank();
    }

    /**
     * Applies the value of {@code key} in {@code section}; what it refuses, or an auth_file it cannot read, is
     * reported at the file and line that set the value.
     */
    private static void at(IniFile ini, String section, String key, Runnable apply) {
        try {
            apply.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(ini.place(section, key) + ": " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException(ini.place(section, key) + ": " + e.getMessage(), e.getCause());
        }
    }

    /**
     * PgBouncer's {@code user} switches to that OS user at start; a JVM cannot, so any other user than the one running
     * pgmux is refused (as {@code -u} is), and that one taken as it is.
     */
    private static void requireOwnUser(String key, String value) {
        String wanted = value.strip();
        String running = System.getProperty("user.name");
        if (!wanted.isEmpty() && !wanted.equals(running)) {
            throw new IllegalArgumentException(key + " = " + wanted + " is not supported by pgmux: a JVM cannot switch"
                    + " its user; start pgmux as " + wanted + " (systemd User=), not as " + running);
        }
    }

    /**
     * auth_ldap_options configures PgBouncer's LDAP client, which pgmux does not have (auth_type ldap and hba ldap
     * lines are refused as well); an ini that sets them means LDAP to be used, so it is refused rather than ignored.
     */
    private static void refuseLdap(IniFile ini) {
        ini.section("pgbouncer").forEach((key, value) -> {
            if (ProxySetting.named(key) == ProxySetting.AUTH_LDAP_OPTIONS && !value.isBlank()) {
                throw new IllegalArgumentException(ini.place("pgbouncer", key) + ": " + key + " is not supported by"
                        + " pgmux: it has no LDAP client (remove auth_ldap_options; authenticate with scram-sha-256, md5,"
                        + " cert or hba instead)");
            }
        });
    }

    /**
     * The {@code [peers]} entries, after [pgbouncer], whose listen address and peer_id they are checked against
     * ({@link PeerEntry#checkNotSelf}), so that an entry naming this process is refused at its line.
     */
    private static void peers(IniFile ini, ProxyBuilder builder) {
        int ownId = builder.setting(ProxySetting.PEER_ID);
        String listenAddr = builder.setting(ProxySetting.LISTEN_ADDR);
        int listenPort = builder.setting(ProxySetting.LISTEN_PORT);
        String unixSocketDir = builder.setting(ProxySetting.UNIX_SOCKET_DIR);
        ini.section("peers").forEach((key, value) -> at(ini, "peers", key, () -> {
            PeerEntry entry = PeerEntry.parse(key, value);
            entry.checkNotSelf(ownId, listenAddr, listenPort, unixSocketDir);
            builder.peer(entry);
        }));
    }

    // ---------------------------------------------------------------- the standalone process's settings

    /** The standalone process's keys: an embedded proxy reports them as ignored. */
    private static final Set<ProxySetting> PROCESS_KEYS = Set.of(ProxySetting.LOGFILE, ProxySetting.PIDFILE,
            ProxySetting.VERBOSE, ProxySetting.SYSLOG, ProxySetting.SYSLOG_IDENT, ProxySetting.SYSLOG_FACILITY);

    /** Whether {@code key} is one of {@link #PROCESS_KEYS}; an unknown key is not (Set.of refuses null). */
    private static boolean isProcessKey(String key) {
        ProxySetting setting = ProxySetting.named(key);
        return setting != null && PROCESS_KEYS.contains(setting);
    }

    /**
     * As {@link #load(Path)}, for the standalone process, which takes logfile, pidfile, verbose and syslog
     * ({@link #processSettings}); embedded, they are reported as ignored.
     */
    public static ProxyBuilder loadForProcess(Path file) throws IOException {
        return load(file, true);
    }

    /**
     * The standalone process's settings, read before the proxy is configured so that its warnings reach the
     * logfile: logfile and pidfile (relative to {@code base}), verbose and syslog.
     *
     * @throws IllegalArgumentException naming the file, line and key, for a value it cannot take
     */
    public static ProcessSettings processSettings(IniFile ini, Path base) {
        ProxySettings.Builder settings = ProxySettings.builder();
        ini.section("pgbouncer").forEach((key, value) -> {
            if (isProcessKey(key)) {
                at(ini, "pgbouncer", key, () -> settings.set(key, value, base));
            }
        });
        return ProcessSettings.of(settings.build());
    }

    // ---------------------------------------------------------------- end of the standalone process's settings
}
