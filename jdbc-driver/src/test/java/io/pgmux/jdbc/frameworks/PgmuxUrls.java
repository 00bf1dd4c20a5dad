package io.pgmux.jdbc.frameworks;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.TestDatabase;
import java.util.Locale;

/** The test database as a {@code jdbc:pgmux:} URL, as a framework is given it: one pool per mode and scenario. */
final class PgmuxUrls {
    private PgmuxUrls() {
    }

    /** A pool of {@code servers} server connections in {@code mode}, its backends named {@code application}. */
    static String url(TestDatabase db, PoolMode mode, String application, int servers) {
        return "jdbc:pgmux:" + db.jdbcUrl().substring("jdbc:".length()) + "?ApplicationName=" + application
                + "&poolMode=" + mode.name().toLowerCase(Locale.ROOT) + "&maximumPoolSize=" + servers
                + "&connectionTimeout=20000";
    }
}
