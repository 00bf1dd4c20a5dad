package io.pgmux.jdbc.pool;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

/**
 * The hosts of a pgjdbc URL, for read routing: the URL its primary pool logs in with (the whole list, looking
 * for the primary) and one URL per host for the pools its reads borrow from. A parameter appended to a URL's
 * query wins over the same one earlier in it, as pgjdbc reads a query left to right, and over the properties.
 */
final class HostList {
    private static final String PREFIX = "jdbc:postgresql:";
    private static final String READ_ONLY = "-c default_transaction_read_only=on";

    /** One host of the list: as the list writes it, and the URL that reaches it alone. */
    record Host(String name, String url) {
    }

    private HostList() {
    }

    /** The URL finding the primary among the hosts: targetServerType=primary, whatever it said. */
    static String primaryUrl(String url) {
        return withParameter(url, PGProperty.TARGET_SERVER_TYPE.getName(), "primary");
    }

    /**
     * Each host of {@code url}'s list (pgjdbc's localhost:5432 when it names none), with a URL to it alone that
     * takes any server type, whose sessions are read-only ({@code default_transaction_read_only}, a startup
     * parameter beside the URL's own {@code options}, so that no reset undoes it): a standby promoted while one
     * of its connections runs a read writes nothing of it, and a read whose connection died is safe to run again.
     *
     * @throws IllegalArgumentException when pgjdbc does not read the URL
     */
    static List<Host> hosts(String url, Properties properties) {
        Properties parsed = Driver.parseURL(url, properties);
        if (parsed == null || !url.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a jdbc:postgresql: URL");
        }
        String[] names = PGProperty.PG_HOST.getOrDefault(parsed).split(",");
        String[] ports = PGProperty.PG_PORT.getOrDefault(parsed).split(",");
        String database = PGProperty.PG_DBNAME.getOrDefault(parsed);
        int q = url.indexOf('?');
        String query = q < 0 ? "" : url.substring(q);
        String own = PGProperty.OPTIONS.getOrDefault(parsed);
        String options = (own == null || own.isBlank() ? "" : own + " ") + READ_ONLY;
        List<Host> hosts = new ArrayList<>(names.length);
        for (int i = 0; i < names.length; i++) {
            // an IPv6 address the URL wrote bare; pgjdbc keeps the brackets of one written with them
            boolean bare = names[i].indexOf(':') >= 0 && !names[i].startsWith("[");
            String address = (bare ? "[" + names[i] + "]" : names[i]) + ":" + ports[i];
            String single = PREFIX + "//" + address + "/" + encode(database == null ? "" : database) + query;
            String any = withParameter(single, PGProperty.TARGET_SERVER_TYPE.getName(), "any");
            hosts.add(new Host(address, withParameter(any, PGProperty.OPTIONS.getName(),
                    URLEncoder.encode(options, StandardCharsets.UTF_8))));
        }
        return hosts;
    }

    private static String encode(String database) {
        return URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String withParameter(String url, String name, String value) {
        return url + (url.indexOf('?') < 0 ? "?" : "&") + name + "=" + value;
    }
}
