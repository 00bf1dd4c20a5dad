package io.pgmux.proxy.churn;

/** Reads one server log line by line, in one of PostgreSQL's log formats. */
interface LogParser {
    void accept(String line);

    /** The end of the file: what is left unfinished is malformed. */
    default void end() {
    }

    /**
     * The parser for a log whose first line is {@code firstLine}: jsonlog when it is a JSON object, csvlog when
     * the time is followed by a comma, else stderr.
     */
    static LogParser forFirstLine(String firstLine, ChurnStats stats) {
        if (firstLine.startsWith("{")) {
            return new JsonLogParser(stats);
        }
        if (CsvLogParser.startsRecord(firstLine)) {
            return new CsvLogParser(stats);
        }
        return new StderrLogParser(stats);
    }
}
