package io.pgmux.proxy.churn;

/**
 * A connection message whose fields read but whose values are beyond what the report can count (a session
 * time past the range of a millisecond clock): the line is counted as malformed and named with its problem.
 */
final class LogLineException extends RuntimeException {
    LogLineException(String problem) {
        super(problem, null, false, false);
    }
}
