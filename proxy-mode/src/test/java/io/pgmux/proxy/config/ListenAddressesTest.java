package io.pgmux.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** listen_addr as PgBouncer reads it: a comma-separated list, IPv6 too, {@code *} for every address. */
class ListenAddressesTest {
    private static final Path BASE = Path.of("");

    private static String listenAddr(String text) {
        return ProxySettings.builder().set("listen_addr", text, BASE).build().get(ProxySetting.LISTEN_ADDR);
    }

    @Test
    void aListIsKeptEntryByEntryWithoutSpaces() {
        assertEquals("127.0.0.1,::1,db.example", listenAddr(" 127.0.0.1 , ::1,db.example "));
        assertEquals(List.of("127.0.0.1", "::1", "db.example"),
                ListenAddresses.hosts(listenAddr("127.0.0.1, ::1, db.example")));
    }

    @Test
    void anIpv6AddressMayBeWrittenInBrackets() {
        assertEquals(List.of("::1"), ListenAddresses.hosts(listenAddr("[::1]")));
    }

    @Test
    void starIsTheIpv6WildcardWhichLinuxGivesEveryIpv4AddressToo() throws Exception {
        List<String> hosts = ListenAddresses.hosts(listenAddr("*"));
        assertEquals(List.of(ListenAddresses.EVERY_ADDRESS), hosts);
        assertTrue(InetAddress.getByName(hosts.get(0)).isAnyLocalAddress());
        assertTrue(InetAddress.getByName(ListenAddresses.EVERY_IPV4_ADDRESS).isAnyLocalAddress());
    }

    @Test
    void emptyListensOnTheUnixSocketOnly() {
        assertEquals(List.of(), ListenAddresses.hosts(listenAddr("")));
    }

    @Test
    void anEmptyEntryIsRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> listenAddr("127.0.0.1,,::1"));
        assertEquals("listen_addr: empty address in the list \"127.0.0.1,,::1\"", e.getMessage());
    }

    @Test
    void starBesideOtherAddressesIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> listenAddr("*,127.0.0.1"));
        assertEquals("listen_addr: * already means every address, not with others in \"*,127.0.0.1\"",
                e.getMessage());
    }

    @Test
    void switchesAndTheSocketModeAreReadAsPgBouncerWritesThem() {
        ProxySettings s = ProxySettings.builder().set("so_reuseport", "1", BASE).set("log_stats", "0", BASE)
                .set("unix_socket_mode", "0750", BASE).build();
        assertEquals(true, s.get(ProxySetting.SO_REUSEPORT));
        assertEquals(false, s.get(ProxySetting.LOG_STATS));
        assertEquals(0750, s.<Integer>get(ProxySetting.UNIX_SOCKET_MODE));
        assertEquals("0750", s.text(ProxySetting.UNIX_SOCKET_MODE));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxySettings.builder().set("unix_socket_mode", "0999", BASE));
        assertEquals("unix_socket_mode must be a file mode in octal (0000 to 0777), not \"0999\"", e.getMessage());
        IllegalArgumentException notSwitch = assertThrows(IllegalArgumentException.class,
                () -> ProxySettings.builder().set("tcp_keepalive", "yes", BASE));
        assertEquals("tcp_keepalive must be 0 or 1, not \"yes\"", notSwitch.getMessage());
    }
}
