package io.pgmux.proxy.standalone;

import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.ProxyBuilder;
import io.pgmux.proxy.ProxyConfigLoader;
import io.pgmux.proxy.admin.AdminConsole;
import io.pgmux.proxy.config.IniFile;
import io.pgmux.proxy.config.ProcessSettings;
import io.pgmux.proxy.log.ProcessId;
import io.pgmux.proxy.standalone.ProcessLog.Level;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * The standalone proxy as a process that PgBouncer's operators know: it reads the ini, logs PgBouncer's lines,
 * keeps a pidfile, registers each pool's MXBean, serves {@code /metrics} when {@code metrics_listen} is set and
 * answers PgBouncer 1.25's signals — SIGHUP reloads, SIGINT shuts down once servers are
 * released (SHUTDOWN WAIT_FOR_SERVERS), SIGTERM once clients have left (SHUTDOWN WAIT_FOR_CLIENTS), either of
 * them during a shutdown exits at once, SIGUSR1 pauses and SIGUSR2 resumes. HotSpot refuses a Java handler for
 * SIGQUIT, with or without {@code -Xrs} (which only drops the thread dump and refuses handlers for SIGHUP, SIGINT
 * and SIGTERM as well): started by the distribution's {@code bin/pgmux}, which takes SIGQUIT in the JVM's place and
 * passes it on as SIGURG, the proxy exits at once as PgBouncer does; started with {@code java -jar}, SIGQUIT stays
 * the JVM's thread dump.
 */
public final class ProxyProcess {
    private final CommandLine line;
    private final AtomicBoolean shuttingDown = new AtomicBoolean();
    private PgMuxProxy proxy;
    private PidFile pidFile;

    public ProxyProcess(CommandLine line) {
        this.line = line;
    }

    /** The first line is SHOW VERSION's, as PgBouncer's is: scripts read the version from either. */
    public static String version() {
        return AdminConsole.versionText() + System.lineSeparator()
                + "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")";
    }

    /** Runs until a shutdown; the process's exit status. */
    public int run() {
        ProcessLog.quiet(line.quiet());
        ProcessLog.verbosity(line.verbose());
        Path config = line.config();
        try {
            ProcessSettings settings = applyProcessSettings(config);
            ProxyBuilder builder = ProxyConfigLoader.loadForProcess(config);
            if (settings.pidfile() != null) {
                pidFile = PidFile.write(settings.pidfile());
            }
            proxy = builder.registerMbeans(true).start();
            proxy.onSettingsApplied(applied -> applyProcessSettings(ProcessSettings.of(applied)));
        } catch (IOException | RuntimeException e) {
            ProcessLog.write(Level.FATAL, startFailure(config, e), null);
            if (pidFile != null) {
                pidFile.remove();
            }
            ProcessLog.close();
            return 1;
        }
        // before "process up", which tells an operator (or a script) that signals are answered
        installSignals();
        for (String address : proxy.listening()) {
            ProcessLog.write(Level.LOG, "listening on " + address, null);
        }
        List<String> idleMemory = IdleMemory.apply();
        if (idleMemory.contains(IdleMemory.PERIODIC_GC)) {
            proxy.registry().addJanitorChore(new PeriodicCollection(Long.toString(IdleMemory.PERIODIC_GC_MILLIS)));
        }
        if (!idleMemory.isEmpty()) {
            ProcessLog.write(Level.DEBUG, "an idle process gives unused heap back: " + String.join(" ", idleMemory)
                    + " (set on the java command line to choose otherwise)", null);
        }
        ProcessLog.write(Level.LOG, "process up: " + version().replace(System.lineSeparator(), ", ") + ", pid "
                + ProcessId.pid() + ", " + proxy.transport(), null);
        proxy.metricsAddress().ifPresent(address -> ProcessLog.write(Level.LOG, "metrics_listen: serving http://"
                + address.getHostString() + ":" + address.getPort() + "/metrics", null));
        proxy.closeFuture().toCompletableFuture().join();
        ProcessLog.write(Level.LOG, "shutdown complete", null);
        if (pidFile != null) {
            pidFile.remove();
        }
        ProcessLog.close();
        return 0;
    }

    private ProcessSettings applyProcessSettings(Path config) throws IOException {
        ProcessSettings settings = ProxyConfigLoader.processSettings(IniFile.load(config),
                config.toAbsolutePath().getParent());
        ProcessLog.logfile(settings.logfile());
        applyLogLevels(settings);
        return settings;
    }

    /**
     * A RELOAD's or SET's values: the logfile is opened again for appending (a rotated one let go), as PgBouncer
     * does at the end of every RELOAD and SIGHUP, one that fails on a broken ini too (the running settings' logfile
     * then). A logfile that cannot be opened keeps the one in use, which says so.
     */
    private void applyProcessSettings(ProcessSettings settings) {
        try {
            ProcessLog.logfile(settings.logfile());
        } catch (IOException e) {
            ProcessLog.write(Level.ERROR, e.getMessage() + "; the logfile in use is kept", null);
        }
        applyLogLevels(settings);
    }

    /** verbose adds to -v, as PgBouncer's "-v -v" is verbose=2. */
    private void applyLogLevels(ProcessSettings settings) {
        ProcessLog.verbosity(line.verbose() + settings.verbose());
        ProcessLog.syslog(settings.syslog(), settings.syslogIdent(), settings.syslogFacility());
    }

    /** One line, no stack trace: what could not be loaded or started, and why. */
    private static String startFailure(Path config, Throwable e) {
        if (e instanceof NoSuchFileException || e instanceof AccessDeniedException) {
            return "cannot load config file: could not load file \"" + ((FileSystemException) e).getFile() + "\": "
                    + reason(e);
        }
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        if (e instanceof UncheckedIOException && e.getCause() != null) {
            message += ": " + reason(e.getCause());
        }
        if (e instanceof IllegalArgumentException) {
            String absolute = config.toAbsolutePath().normalize().toString();
            return "cannot load config file" + (message.startsWith(absolute) ? ": " : " " + config + ": ") + message;
        }
        return message;
    }

    /** strerror's words for the file errors an operator meets, as PgBouncer prints them. */
    private static String reason(Throwable e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    // ---------------------------------------------------------------- signals

    private void installSignals() {
        handle("HUP", this::reload, "RELOAD on the admin console still reloads");
        handle("INT", () -> shutdown("SIGINT", "waiting for all servers connections to be released", () -> {
            proxy.closeWaitForServers();
            return null;
        }), "SHUTDOWN WAIT_FOR_SERVERS on the admin console and SIGTERM still shut down");
        handle("TERM", () -> shutdown("SIGTERM", "waiting for all clients disconnect", () -> {
            proxy.closeWaitForClients();
            return null;
        }), "SHUTDOWN WAIT_FOR_CLIENTS on the admin console and SIGINT still shut down");
        handle("USR1", () -> {
            ProcessLog.write(Level.LOG, "got SIGUSR1, pausing all activity", null);
            proxy.pause().thenRun(() -> ProcessLog.write(Level.LOG, "PAUSE done: no server in use", null));
        });
        handle("USR2", () -> {
            // as PgBouncer: nothing is resumed once a shutdown has begun, even one whose work has not started yet
            if (shuttingDown.get() || proxy.isShuttingDown()) {
                ProcessLog.write(Level.LOG, "got SIGUSR2 while shutting down, ignoring", null);
                return;
            }
            ProcessLog.write(Level.LOG, "got SIGUSR2, continuing", null);
            proxy.resume();
        });
        if (ProcessId.launcher().isPresent()) {
            // bin/pgmux takes SIGQUIT in the JVM's place and passes it on as SIGURG
            handle("URG", () -> immediateShutdown("SIGQUIT"));
            return;
        }
        try {
            Signal.handle(new Signal("QUIT"), signal -> immediateShutdown("SIGQUIT"));
        } catch (IllegalArgumentException e) {
            ProcessLog.write(Level.LOG, "SIGQUIT stays the JVM's thread dump (" + e.getMessage() + "): for an"
                    + " immediate shutdown send SIGINT or SIGTERM a second time, or SHUTDOWN on the console, or"
                    + " start with the distribution's bin/pgmux", null);
        }
    }

    private static void handle(String name, Runnable action) {
        handle(name, action, null);
    }

    /**
     * Installs {@code action} for SIG{@code name}. For SIGHUP, SIGINT and SIGTERM alone, the JVM installs
     * nothing when the process started with the signal ignored ({@code nohup} ignores SIGHUP; a
     * non-interactive shell's {@code &} ignores SIGINT and SIGQUIT) and answers SIG_IGN: the signal is lost,
     * which is said with {@code stillWorks}, the way left to the same effect. Other signals are installed over
     * an ignored one.
     */
    private static void handle(String name, Runnable action, String stillWorks) {
        try {
            if (Signal.handle(new Signal(name), signal -> action.run()) == SignalHandler.SIG_IGN
                    && stillWorks != null) {
                ProcessLog.write(Level.WARNING, "SIG" + name + " was ignored when the process started (as nohup or"
                        + " a background job of a script leaves it) and stays ignored: " + stillWorks + "; start"
                        + " with env --default-signal=" + name + " to have it", null);
            }
        } catch (IllegalArgumentException e) {
            ProcessLog.write(Level.WARNING, "SIG" + name + " cannot be handled (" + e.getMessage() + "); run"
                    + " without -Xrs for PgBouncer's meaning of it", null);
        }
    }

    /**
     * On the proxy's executor for blocking work (the signal handler's thread is the JVM's, and files may block), the
     * listeners holding whoever connects until it is over.
     */
    private void reload() {
        ProcessLog.write(Level.LOG, "got SIGHUP, re-reading config", null);
        proxy.reloadInBackground().whenComplete((applied, failure) -> {
            if (failure == null) {
                ProcessLog.write(Level.LOG, "RELOAD: configuration applied", null);
            } else {
                ProcessLog.write(Level.ERROR, "RELOAD failed, the running configuration is kept: "
                        + startFailure(line.config(), failure), null);
            }
        });
    }

    @FunctionalInterface
    private interface Shutdown {
        Void run() throws InterruptedException;
    }

    /** PgBouncer 1.25: a second SIGINT or SIGTERM during a shutdown is an immediate one. */
    private void shutdown(String signal, String waiting, Shutdown how) {
        if (!shuttingDown.compareAndSet(false, true)) {
            immediateShutdown(signal);
            return;
        }
        ProcessLog.write(Level.LOG, "got " + signal + ", shutting down, " + waiting, null);
        proxy.blockingWork().execute(() -> {
            try {
                how.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private void immediateShutdown(String signal) {
        ProcessLog.write(Level.LOG, "got " + signal + ", fast exit", null);
        if (pidFile != null) {
            pidFile.remove();
        }
        proxy.removeUnixSocket();
        ProcessLog.close();
        System.exit(0);
    }
}
