package io.pgmux.jdbc.fleet;

import io.pgmux.core.fleet.FleetQueryException;
import io.pgmux.core.fleet.FleetSession;
import io.pgmux.core.fleet.FleetSessions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** A fleet member's coordination connection in the JDBC driver: a pgjdbc connection of its own. */
public final class PgjdbcFleetSession implements FleetSession {
    /** The SPI's {@code $n} parameters, numbered in order, each once: pgjdbc's {@code ?} in their places. */
    private static final Pattern PARAMETER = Pattern.compile("\\$\\d+");

    /** Opens the connection, logged in as the pool's own connections are. */
    @FunctionalInterface
    public interface Login {
        /** A new connection whose waits for the server end after {@code timeoutSeconds}. */
        Connection open(int timeoutSeconds, String applicationName) throws SQLException;
    }

    private final Connection connection;

    private PgjdbcFleetSession(Connection connection) {
        this.connection = connection;
    }

    /** The sessions {@code login} opens. */
    public static FleetSessions through(Login login) {
        return (applicationName, timeout) -> open(login, applicationName, timeout);
    }

    private static FleetSession open(Login login, String applicationName, Duration timeout)
            throws FleetQueryException {
        try {
            Connection c = login.open((int) Math.max(1, timeout.toSeconds()), applicationName);
            try {
                c.setNetworkTimeout(Runnable::run, (int) timeout.toMillis());
                return new PgjdbcFleetSession(c);
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
        } catch (SQLException e) {
            throw new FleetQueryException(e.getMessage(), e);
        }
    }

    @Override
    public List<String[]> query(String sql, String... parameters) throws FleetQueryException {
        try (PreparedStatement st = connection.prepareStatement(PARAMETER.matcher(sql).replaceAll("?"))) {
            for (int i = 0; i < parameters.length; i++) {
                st.setString(i + 1, parameters[i]);
            }
            if (!st.execute()) {
                return List.of();
            }
            List<String[]> rows = new ArrayList<>();
            try (ResultSet rs = st.getResultSet()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    String[] row = new String[columns];
                    for (int c = 0; c < columns; c++) {
                        row[c] = rs.getString(c + 1);
                    }
                    rows.add(row);
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new FleetQueryException(e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // the server ends the session with the socket
        }
    }
}
