package io.pgmux.proxy.client;

import io.pgmux.proxy.auth.AuthQuery;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.auth.HbaFile;
import io.pgmux.proxy.auth.IdentMap;
import io.pgmux.proxy.auth.QueriedUsers;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How clients are authenticated beyond the auth file, read and checked when the proxy starts and at each RELOAD or
 * SET of one of them: auth_type, auth_query with its auth_user and auth_dbname (globally and per database, a
 * database's own winning), the hba and ident files of auth_type hba, and scram_iterations.
 */
public final class ClientAuthentication {
    private final AuthType authType;
    private final AuthQuery global;
    private final Map<String, AuthQuery> byDatabase;
    private final HbaFile hba;
    private final IdentMap identMap;
    private final int scramIterations;

    private ClientAuthentication(AuthType authType, AuthQuery global, Map<String, AuthQuery> byDatabase,
            HbaFile hba, IdentMap identMap, int scramIterations) {
        this.authType = authType;
        this.global = global;
        this.byDatabase = byDatabase;
        this.hba = hba;
        this.identMap = identMap;
        this.scramIterations = scramIterations;
    }

    /**
     * @param byDatabase the auth_user, auth_query and auth_dbname of the databases that set their own
     * @throws IllegalArgumentException naming the setting, or file and line, of what cannot be used
     */
    public static ClientAuthentication of(ProxySettings settings, Map<String, Map<ProxySetting, String>> byDatabase) {
        int iterations = settings.get(ProxySetting.SCRAM_ITERATIONS);
        Map<String, AuthQuery> queries = new LinkedHashMap<>();
        byDatabase.forEach((database, own) -> {
            AuthQuery query = authQuery(settings, own);
            if (query != null) {
                queries.put(database, query);
            }
        });
        HbaFile hba = null;
        IdentMap identMap = IdentMap.EMPTY;
        AuthType authType = settings.get(ProxySetting.AUTH_TYPE);
        if (authType == AuthType.HBA) {
            Path hbaFile = settings.get(ProxySetting.AUTH_HBA_FILE);
            if (hbaFile == null) {
                throw new IllegalArgumentException("auth_type = hba needs auth_hba_file");
            }
            hba = HbaFile.load(hbaFile);
            Path identFile = settings.get(ProxySetting.AUTH_IDENT_FILE);
            if (identFile != null) {
                identMap = IdentMap.load(identFile);
            }
        }
        return new ClientAuthentication(authType, authQuery(settings, Map.of()), Map.copyOf(queries), hba, identMap,
                iterations);
    }

    /** The database's auth_query, its own settings over the global ones; null without an auth_user. */
    private static AuthQuery authQuery(ProxySettings settings, Map<ProxySetting, String> own) {
        String user = own.getOrDefault(ProxySetting.AUTH_USER, settings.get(ProxySetting.AUTH_USER)).strip();
        if (user.isEmpty()) {
            return null;
        }
        String query = own.getOrDefault(ProxySetting.AUTH_QUERY, settings.get(ProxySetting.AUTH_QUERY)).strip();
        if (query.isEmpty()) {
            throw new IllegalArgumentException("auth_query must not be empty when auth_user is set");
        }
        String dbname = own.getOrDefault(ProxySetting.AUTH_DBNAME, settings.get(ProxySetting.AUTH_DBNAME)).strip();
        return new AuthQuery(user, query, dbname.isEmpty() ? null : dbname);
    }

    /**
     * Puts these settings in force for the clients that log in from now on; auth_query's finds go to
     * {@code queried}.
     */
    public void applyTo(ProxyContext context, QueriedUsers queried) {
        context.authQueries(global, byDatabase, queried);
        if (hba != null) {
            context.hba(hba, identMap);
        }
        context.authType(authType);
        context.scramIterations(scramIterations);
    }
}
