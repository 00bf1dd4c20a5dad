package io.pgmux.proxy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The in-process proxy's log lines (slf4j-simple writes them to standard error) while it is open: read as they come,
 * and passed on to the real standard error when closed, so a failing test's output still shows them.
 */
final class CapturedLog implements AutoCloseable {
    private final PrintStream stderr = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    private CapturedLog() {
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    static CapturedLog start() {
        return new CapturedLog();
    }

    /** What was logged since {@link #start()}. */
    String text() {
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        System.setErr(stderr);
        stderr.print(text());
    }
}
