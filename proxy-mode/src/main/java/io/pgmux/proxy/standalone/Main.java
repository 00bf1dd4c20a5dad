package io.pgmux.proxy.standalone;

import io.netty.util.ResourceLeakDetector;
import io.pgmux.proxy.churn.ChurnReport;
import java.util.List;

/**
 * Runs the proxy standalone, with PgBouncer's command line: {@code java -jar pgmux-proxy-<version>-all.jar
 * pgbouncer.ini} (see {@link CommandLine} and {@link ProxyProcess}); {@code … churn postgresql.log…} prints the
 * connection-churn report instead ({@link ChurnReport}). Exit status 0 after {@code -h}, {@code -V}
 * and a shutdown, 1 after a usage error or a failed start, as PgBouncer's. Netty's buffer leak detection is off
 * unless {@code -Dio.netty.leakDetection.level} names a level: its default samples one buffer in 128 with a
 * stack trace, a cost on every relayed result that the test suites, which run it paranoid, make unnecessary.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("churn")) {
            System.exit(ChurnReport.run(List.of(args).subList(1, args.length), System.out, System.err));
        }
        CommandLine line = CommandLine.parse(List.of(args));
        switch (line.action()) {
            case HELP -> System.out.print(CommandLine.usage());
            case VERSION -> System.out.println(ProxyProcess.version());
            case ERROR -> {
                System.err.println(line.error());
                System.exit(1);
            }
            case RUN -> {
                if (System.getProperty("io.netty.leakDetection.level") == null) {
                    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
                }
                System.exit(new ProxyProcess(line).run());
            }
        }
    }
}
