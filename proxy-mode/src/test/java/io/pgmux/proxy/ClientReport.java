package io.pgmux.proxy;

import java.util.List;

/**
 * What one run of a {@link ClientScript} printed: a line {@code OK <scenario> <facts>} for each scenario that
 * passed its own checks, {@code FAIL <scenario> <error>} and an indented traceback for each that did not.
 */
final class ClientReport {
    private final List<String> command;
    private final int exitCode;
    private final String output;

    ClientReport(List<String> command, int exitCode, String output) {
        this.command = command;
        this.exitCode = exitCode;
        this.output = output;
    }

    /** The facts the scenario reported; an AssertionError with the scenario's report when it failed. */
    String facts(String scenario) {
        String ok = "OK " + scenario;
        String failed = "FAIL " + scenario + " ";
        String[] lines = output.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.equals(ok)) {
                return "";
            }
            if (line.startsWith(ok + " ")) {
                return line.substring(ok.length() + 1);
            }
            if (line.startsWith(failed)) {
                StringBuilder report = new StringBuilder(line);
                for (int j = i + 1; j < lines.length && lines[j].startsWith("  "); j++) {
                    report.append('\n').append(lines[j]);
                }
                throw new AssertionError(report);
            }
        }
        throw new AssertionError("scenario " + scenario + " did not report (exit code " + exitCode + ") from "
                + command + ":\n" + output);
    }
}
