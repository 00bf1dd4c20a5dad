package io.pgmux.proxy.config;

import java.nio.file.Path;

/**
 * The {@code [pgbouncer]} settings that belong to the standalone process rather than to the proxy:
 * where it logs, where it writes its pid and how verbosely.
 *
 * @param logfile PgBouncer's logfile, appended to; null when not set
 * @param pidfile PgBouncer's pidfile, written at start and removed at a clean exit; null when not set
 * @param verbose PgBouncer's verbose (0 by default), added to by {@code -v}
 * @param syslog whether log lines also go to the local syslog
 * @param syslogIdent the name they go there under
 * @param syslogFacility the facility they go there under
 */
public record ProcessSettings(Path logfile, Path pidfile, int verbose, boolean syslog, String syslogIdent,
        SyslogFacility syslogFacility) {

    /** The process's settings among a proxy's (as RELOAD and SET leave them). */
    public static ProcessSettings of(ProxySettings settings) {
        return new ProcessSettings(settings.get(ProxySetting.LOGFILE), settings.get(ProxySetting.PIDFILE),
                settings.get(ProxySetting.VERBOSE), settings.get(ProxySetting.SYSLOG),
                settings.get(ProxySetting.SYSLOG_IDENT), settings.get(ProxySetting.SYSLOG_FACILITY));
    }
}
