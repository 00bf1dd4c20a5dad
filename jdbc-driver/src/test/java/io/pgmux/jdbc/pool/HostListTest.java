package io.pgmux.jdbc.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.postgresql.Driver;

/** The URLs a read-routing pool logs in with: the whole list for its primary, each host alone for its reads. */
class HostListTest {

    private static String parsed(String url, String property) {
        return Driver.parseURL(url, new Properties()).getProperty(property);
    }

    @Test
    void thePrimaryPoolLooksForThePrimaryWhateverTheUrlAskedFor() {
        String url = HostList.primaryUrl("jdbc:postgresql://h1,h2:5433/app?targetServerType=preferSecondary");

        assertEquals("primary", parsed(url, "targetServerType"));
        assertEquals("h1,h2", parsed(url, "PGHOST"));
    }

    @Test
    void eachHostGetsAUrlToItAloneThatTakesAnyServerType() {
        List<HostList.Host> hosts = HostList.hosts(
                "jdbc:postgresql://h1,h2:5433/app?targetServerType=primary&ssl=false", new Properties());

        assertEquals(List.of("h1:5432", "h2:5433"), hosts.stream().map(HostList.Host::name).toList());
        String second = hosts.get(1).url();
        assertEquals("h2", parsed(second, "PGHOST"));
        assertEquals("5433", parsed(second, "PGPORT"));
        assertEquals("app", parsed(second, "PGDBNAME"));
        assertEquals("any", parsed(second, "targetServerType"));
        assertEquals("false", parsed(second, "ssl"));
    }

    @Test
    void anIpv6HostAndADatabaseNameWithSpacesKeepTheirMeaning() {
        List<HostList.Host> hosts = HostList.hosts("jdbc:postgresql://[::1]:5432/my%20app", new Properties());

        assertEquals("[::1]:5432", hosts.get(0).name());
        assertEquals("[::1]", parsed(hosts.get(0).url(), "PGHOST"));
        assertEquals("my app", parsed(hosts.get(0).url(), "PGDBNAME"));
    }
}
