package io.pgmux.proxy.config;

import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.config.ProxySetting.Scope;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configures a proxy from a pgbouncer.ini-shaped file: {@code [databases]} entries ({@link DatabaseEntry}),
 * {@code [users]} entries ({@link UserEntry}) and the {@code [pgbouncer]} settings {@link ProxySetting} lists as
 * taken globally. logfile, pidfile, verbose and syslog are the standalone process's ({@link #loadForProcess},
 * {@link #processSettings}). Other PgBouncer settings are logged and ignored. {@code %include file} reads another file in place (see
 * {@link IniFile}). Relative file names (auth_file, server_tls_*_file, logfile, pidfile) are resolved against the
 * file's directory.
 */
public final class ProxyConfigLoader {
    private static final Logger log = LoggerFactory.getLogger(ProxyConfigLoader.class);
    private static final Set<ProxySetting> WINDOWS_ONLY = Set.of(ProxySetting.JOB_NAME, ProxySetting.SERVICE_NAME);

    private ProxyConfigLoader() {
    }

    public static PgMuxProxy.Builder load(Path file) throws IOException {
        return load(file, Set.of());
    }

    private static PgMuxProxy.Builder load(Path file, Set<String> takenElsewhere) throws IOException {
        IniFile ini = IniFile.load(file);
        Path base = file.toAbsolutePath().getParent();
        PgMuxProxy.Builder builder = configure(ini, base, takenElsewhere, file.toAbsolutePath());
        return builder.reloadFromFile(conffile -> load(conffile, takenElsewhere));
    }

    /** @param base where relative file names (auth_file, server_tls_*_file) are looked up */
    public static PgMuxProxy.Builder configure(IniFile ini, Path base) {
        return configure(ini, base, Set.of(), null);
    }

    /**
     * @param takenElsewhere [pgbouncer] keys that another part reads, so not to be reported as ignored
     * @param file the file read, conffile's default; null when the ini was not read from a file
     */
    private static PgMuxProxy.Builder configure(IniFile ini, Path base, Set<String> takenElsewhere, Path file) {
        PgMuxProxy.Builder builder = PgMuxProxy.builder();
        refusePeers(ini);
        Map<String, String> databases = ini.section("databases");
        if (databases.isEmpty()) {
            throw new IllegalArgumentException("the [databases] section is missing or empty");
        }
        databases.forEach((name, value) -> {
            DatabaseEntry entry = DatabaseEntry.parse(name, value);
            builder.database(name, entry.target());
            entry.poolSettings().forEach((key, v) -> builder.databaseSetting(name, key, v));
        });
        ini.section("users").forEach((user, value) ->
                UserEntry.parse(user, value).poolSettings().forEach((key, v) -> builder.userSetting(user, key, v)));
        // PgBouncer's default, which a builder in code does not share
        builder.set(ProxySetting.UNIX_SOCKET_DIR.configName(), ProxySetting.UNIX_SOCKET_DIR.defaultText(), base);
        if (file != null) {
            builder.set(ProxySetting.CONFFILE.configName(), file.toString(), base);
        }
        ini.section("pgbouncer").forEach((key, value) -> {
            if (ProxySetting.global(key) != null) {
                builder.set(key, value, base);
                if (WINDOWS_ONLY.contains(ProxySetting.named(key))) {
                    log.info("pgbouncer.ini setting {} names PgBouncer's Windows service and has no effect in pgmux",
                            key);
                }
            } else if (takenElsewhere.contains(key)) {
                return;
            } else if (ProxySetting.named(key) != null) {
                log.warn("pgbouncer.ini setting {} is not supported by pgmux yet and is ignored", key);
            } else {
                log.warn("pgbouncer.ini: {} (ignored)", ProxySetting.unknown("setting", key, Scope.GLOBAL));
            }
        });
        return builder;
    }

    /**
     * PgBouncer's peering (a {@code [peers]} section, a {@code peer_id} other than 0, which {@link ProxySetting}
     * refuses) forwards cancel requests between poolers sharing a port; pgmux does not take part in it, and a
     * pooler silently outside its peer group would lose cancels, so the configuration is refused.
     */
    private static void refusePeers(IniFile ini) {
        if (!ini.section("peers").isEmpty()) {
            throw new IllegalArgumentException("[peers] is not supported by pgmux: it cannot forward cancel requests "
                    + "to or from PgBouncer peers (remove the [peers] section)");
        }
    }

    // ---------------------------------------------------------------- the standalone process's settings

    /** Read by {@link #processSettings}, for the process rather than the proxy. */
    private static final Set<String> PROCESS_KEYS = Set.of("logfile", "pidfile", "verbose", "syslog");

    /**
     * As {@link #load(Path)}, for the standalone process, which takes logfile, pidfile, verbose and syslog itself
     * ({@link #processSettings}); embedded, they are reported as ignored.
     */
    public static PgMuxProxy.Builder loadForProcess(Path file) throws IOException {
        return load(file, PROCESS_KEYS);
    }

    /**
     * The standalone process's settings: logfile and pidfile (relative to {@code base}), verbose, and syslog,
     * which is refused when on: pgmux logs to stderr and the logfile only.
     */
    public static ProcessSettings processSettings(IniFile ini, Path base) {
        Map<String, String> settings = ini.section("pgbouncer");
        String syslog = settings.getOrDefault("syslog", "0").strip();
        if (!syslog.equals("0")) {
            throw new IllegalArgumentException("syslog = " + syslog + " is not supported by pgmux: it logs to stderr"
                    + " and to the logfile (set syslog = 0 or remove it)");
        }
        String verbose = settings.getOrDefault("verbose", "0").strip();
        if (!verbose.matches("\\d{1,9}")) {
            throw new IllegalArgumentException("verbose must be 0 or more, not \"" + verbose + "\"");
        }
        return new ProcessSettings(file(settings, "logfile", base), file(settings, "pidfile", base),
                Integer.parseInt(verbose));
    }

    /** A file setting, relative to {@code base}; null when absent or empty (PgBouncer's "not set"). */
    private static Path file(Map<String, String> settings, String key, Path base) {
        String value = settings.get(key);
        return value == null || value.isBlank() ? null : base.resolve(value.strip());
    }

    // ---------------------------------------------------------------- end of the standalone process's settings
}
