package io.pgmux.jdbc.logical;

import io.pgmux.jdbc.physical.PhysicalConnection;
import java.sql.SQLException;

/** The session settings a new server connection of a pool starts with. */
public final class ServerDefaults {
    public final int isolation;
    public final String schema;
    public final String catalog;
    public final String applicationName;

    private ServerDefaults(int isolation, String schema, String catalog, String applicationName) {
        this.isolation = isolation;
        this.schema = schema;
        this.catalog = catalog;
        this.applicationName = applicationName;
    }

    public static ServerDefaults of(PhysicalConnection p) throws SQLException {
        return new ServerDefaults(p.openedIsolation(), p.openedSchema(), p.connection().getCatalog(),
                p.openedApplicationName());
    }
}
