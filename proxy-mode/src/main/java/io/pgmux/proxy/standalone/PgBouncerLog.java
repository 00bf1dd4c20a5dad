package io.pgmux.proxy.standalone;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J backend of the runnable jar, registered there only (the library jar binds none): every logger
 * writes to {@link ProcessLog}, so that warnings about the configuration reach the operator in PgBouncer's
 * line format, on stderr and in the logfile. SLF4J's INFO is PgBouncer's LOG, WARN its WARNING, TRACE its
 * NOISE.
 */
public final class PgBouncerLog implements SLF4JServiceProvider {
    private ILoggerFactory loggers;
    private IMarkerFactory markers;
    private MDCAdapter mdc;

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggers;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
        Map<String, Logger> byName = new ConcurrentHashMap<>();
        loggers = name -> byName.computeIfAbsent(name, ProcessLogger::new);
        markers = new BasicMarkerFactory();
        mdc = new NOPMDCAdapter();
    }

    private static final class ProcessLogger extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;

        ProcessLogger(String name) {
            this.name = name;
        }

        private static ProcessLog.Level level(Level level) {
            return switch (level) {
                case ERROR -> ProcessLog.Level.ERROR;
                case WARN -> ProcessLog.Level.WARNING;
                case INFO -> ProcessLog.Level.LOG;
                case DEBUG -> ProcessLog.Level.DEBUG;
                case TRACE -> ProcessLog.Level.NOISE;
            };
        }

        @Override
        public boolean isTraceEnabled() {
            return ProcessLog.enabled(ProcessLog.Level.NOISE);
        }

        @Override
        public boolean isDebugEnabled() {
            return ProcessLog.enabled(ProcessLog.Level.DEBUG);
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                Throwable thrown) {
            ProcessLog.write(level(level), MessageFormatter.basicArrayFormat(pattern, arguments), thrown);
        }
    }
}
