package io.pgmux.proxy.standalone;

import java.nio.file.Path;
import java.util.List;

/**
 * PgBouncer's command line: {@code [-d] [-R] [-q] [-v]... [-u user] [-V] [-h] config.ini}, short options
 * combinable ({@code -qv}), long ones as {@code --verbose} or {@code --user=name}. {@code -d}, {@code -R} and
 * {@code -u} are recognised and refused: a JVM cannot daemonize itself, take over another process's sockets or
 * switch its user, so a service manager does each of these.
 */
public record CommandLine(Action action, Path config, boolean quiet, int verbose, String error) {
    public static final String PROGRAM = "pgmux";

    public enum Action {
        RUN, HELP, VERSION, ERROR
    }

    public static String usage() {
        return String.join(System.lineSeparator(),
                PROGRAM + " is a connection pooler for PostgreSQL (PgBouncer's command line and pgbouncer.ini).",
                "",
                "Usage:",
                "  " + PROGRAM + " [OPTION]... CONFIG_FILE",
                "  " + PROGRAM + " churn POSTGRESQL_LOG...   report connection churn from a server's log",
                "",
                "Options:",
                "  -q, --quiet          run quietly (no log lines to stderr)",
                "  -v, --verbose        increase verbosity",
                "  -V, --version        show version, then exit",
                "  -h, --help           show this help, then exit",
                "  -d, --daemon         not supported: run in the foreground under a service manager",
                "  -R, --reboot         not supported: a JVM cannot take over another process's sockets",
                "  -u, --user=USERNAME  not supported: let the service manager choose the user",
                "");
    }

    public static CommandLine parse(List<String> args) {
        boolean quiet = false;
        int verbose = 0;
        boolean help = false;
        boolean version = false;
        String config = null;
        boolean optionsEnded = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (optionsEnded || !arg.startsWith("-") || arg.equals("-")) {
                if (config != null) {
                    return usageError("too many arguments: " + config + " and " + arg
                            + " (one configuration file only)");
                }
                config = arg;
            } else if (arg.equals("--")) {
                optionsEnded = true;
            } else if (arg.startsWith("--")) {
                String name = arg.substring(2);
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    name = name.substring(0, eq);
                }
                switch (name) {
                    case "quiet" -> quiet = true;
                    case "verbose" -> verbose++;
                    case "help" -> help = true;
                    case "version" -> version = true;
                    case "daemon", "reboot", "user" -> {
                        return refused(name.charAt(0) == 'r' ? 'R' : name.charAt(0));
                    }
                    default -> {
                        return usageError("unrecognized option '" + arg + "'");
                    }
                }
            } else {
                for (int c = 1; c < arg.length(); c++) {
                    char option = arg.charAt(c);
                    switch (option) {
                        case 'q' -> quiet = true;
                        case 'v' -> verbose++;
                        case 'h' -> help = true;
                        case 'V' -> version = true;
                        case 'd', 'R', 'u' -> {
                            return refused(option);
                        }
                        default -> {
                            return usageError("invalid option -- '" + option + "'");
                        }
                    }
                }
            }
        }
        if (help) {
            return new CommandLine(Action.HELP, null, quiet, verbose, null);
        }
        if (version) {
            return new CommandLine(Action.VERSION, null, quiet, verbose, null);
        }
        if (config == null) {
            return usageError("no configuration file specified");
        }
        return new CommandLine(Action.RUN, Path.of(config), quiet, verbose, null);
    }

    private static CommandLine refused(char option) {
        String why = switch (option) {
            case 'd' -> "-d (--daemon) is not supported: a JVM cannot daemonize itself; run " + PROGRAM
                    + " in the foreground under a service manager (systemd Type=simple) with pidfile and logfile";
            case 'R' -> "-R (--reboot) is not supported: a JVM cannot take over another process's sockets; use"
                    + " so_reuseport and a rolling restart, as PgBouncer recommends";
            default -> "-u (--user) is not supported: a JVM cannot switch its user; start " + PROGRAM
                    + " as that user (systemd User=)";
        };
        return error(why);
    }

    /** As PgBouncer: the complaint, then where to find the usage. */
    private static CommandLine usageError(String message) {
        return error(message + System.lineSeparator() + "Try \"" + PROGRAM + " --help\" for more information.");
    }

    private static CommandLine error(String message) {
        return new CommandLine(Action.ERROR, null, false, 0, PROGRAM + ": " + message);
    }
}
