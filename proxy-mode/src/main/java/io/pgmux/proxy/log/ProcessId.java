package io.pgmux.proxy.log;

import java.util.Optional;

/**
 * The pid an operator signals and reads in the log and the pidfile: the JVM's own, or, when the distribution's
 * {@code bin/pgmux} launcher started it, the launcher's, which stays beside the JVM and passes PgBouncer's
 * signals on (SIGQUIT included, which a JVM cannot take). The launcher names itself with
 * {@code -Dpgmux.launcher.pid}; a value that is not this process's parent is ignored.
 */
public final class ProcessId {
    private static final long LAUNCHER = launcherPid();
    private static final long PID = LAUNCHER > 0 ? LAUNCHER : ProcessHandle.current().pid();

    private ProcessId() {
    }

    /** The pid the pidfile and the log name. */
    public static long pid() {
        return PID;
    }

    /** The launcher's pid, when the launcher started this JVM. */
    public static Optional<Long> launcher() {
        return LAUNCHER > 0 ? Optional.of(LAUNCHER) : Optional.empty();
    }

    private static long launcherPid() {
        String named = System.getProperty("pgmux.launcher.pid");
        if (named == null) {
            return 0;
        }
        try {
            long pid = Long.parseLong(named.strip());
            return ProcessHandle.current().parent().map(ProcessHandle::pid).filter(p -> p == pid).orElse(0L);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
