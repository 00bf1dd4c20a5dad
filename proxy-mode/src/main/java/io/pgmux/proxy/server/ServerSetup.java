package io.pgmux.proxy.server;

import java.util.Map;

/**
 * What a {@code [databases]} entry asks of each new server connection: startup parameters (its client_encoding,
 * datestyle and timezone, under the names PgBouncer sends) and a connect_query run once after the login, before
 * any client uses the connection.
 *
 * @param startupParameters sent with the user and database in the StartupMessage, in order
 * @param connectQuery null for none
 */
public record ServerSetup(Map<String, String> startupParameters, String connectQuery) {
    /** Nothing beyond the login. */
    public static final ServerSetup NONE = new ServerSetup(Map.of(), null);

    public ServerSetup {
        startupParameters = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(startupParameters));
    }
}
