package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PgBouncer's subset of pg_hba.conf: which line decides a client's method, and what a bad line is told. */
class HbaFileTest {
    @TempDir
    Path dir;

    @Test
    void firstMatchingLineDecidesAndNoMatchRejects() throws Exception {
        HbaFile hba = hba("""
                # comment
                host all alice 127.0.0.1/32 trust
                host all all 127.0.0.0/8 scram-sha-256   # trailing comment
                host all all 10.0.0.0 255.0.0.0 md5
                """);
        assertEquals(AuthType.TRUST, method(hba, "127.0.0.1", false, "db", "alice"));
        assertEquals(AuthType.SCRAM_SHA_256, method(hba, "127.0.0.1", false, "db", "bob"));
        assertEquals(AuthType.SCRAM_SHA_256, method(hba, "127.8.9.1", false, "db", "alice"));
        assertEquals(AuthType.MD5, method(hba, "10.1.2.3", false, "db", "bob"));
        assertEquals(HbaFile.Rule.NO_MATCH, hba.evaluate(InetAddress.getByName("192.168.0.1"), false, "db", "bob"));
    }

    @Test
    void hostsslAndHostnosslFollowTheClientsTls() throws Exception {
        HbaFile hba = hba("""
                hostssl all all all cert
                hostnossl all all all password
                """);
        assertEquals(AuthType.CERT, method(hba, "127.0.0.1", true, "db", "u"));
        assertEquals(AuthType.PLAIN, method(hba, "127.0.0.1", false, "db", "u"));
    }

    @Test
    void localLinesNeverMatchTcpClientsAndMatchUnixSocketOnes() throws Exception {
        HbaFile hba = hba("""
                local all all peer map=os
                host all all ::1/128 trust
                """);
        assertEquals(null, method(hba, "127.0.0.1", false, "db", "u"));
        assertEquals(AuthType.TRUST, method(hba, "::1", false, "db", "u"));
        HbaFile.Rule unix = hba.evaluate(null, false, "db", "u");
        assertEquals(new HbaFile.Rule(AuthType.PEER, "os"), unix);
    }

    @Test
    void databaseAndUserListsSameuserFilesAndQuotedNames() throws Exception {
        Files.writeString(dir.resolve("admins.txt"), "root, ops\n# comment\nbackup\n");
        HbaFile hba = hba("""
                host sameuser all all trust
                host shop,"all" @admins.txt all md5
                host all all all reject
                """);
        assertEquals(AuthType.TRUST, method(hba, "127.0.0.1", false, "carol", "carol"));
        assertEquals(AuthType.MD5, method(hba, "127.0.0.1", false, "shop", "backup"));
        assertEquals(AuthType.MD5, method(hba, "127.0.0.1", false, "all", "ops"));
        assertEquals(AuthType.REJECT, method(hba, "127.0.0.1", false, "other", "ops"));
        assertEquals(AuthType.REJECT, method(hba, "127.0.0.1", false, "shop", "carol"));
        assertEquals(HbaFile.Rule.NO_MATCH, hba("host shop all all md5\n")
                .evaluate(InetAddress.getByName("127.0.0.1"), false, "other", "carol"));
    }

    /** As in PostgreSQL and PgBouncer: the keyword matches physical replication connections, and they only it. */
    @Test
    void theReplicationKeywordMatchesPhysicalReplicationConnectionsOnly() throws Exception {
        HbaFile hba = hba("""
                host replication backup 127.0.0.1/32 trust
                host all all 127.0.0.1/32 md5
                """);
        InetAddress local = InetAddress.getByName("127.0.0.1");
        assertEquals(AuthType.TRUST, hba.evaluate(local, false, "replication", "backup", true).method());
        assertEquals(HbaFile.Rule.NO_MATCH, hba.evaluate(local, false, "app", "alice", true));
        assertEquals(AuthType.MD5, hba.evaluate(local, false, "replication", "backup", false).method());
    }

    @Test
    void malformedLinesAreRefusedNamingFileAndLine() throws Exception {
        assertRefused("host all all 127.0.0.1/32 ident", "line 1: unsupported method \"ident\"");
        assertRefused("\nhost all all db.example.com md5", "line 2: \"db.example.com\" is not an IP address");
        assertRefused("host all all 127.0.0.1/33 md5", "line 1: invalid mask /33");
        assertRefused("hots all all 127.0.0.1/32 md5", "line 1: unknown connection type \"hots\"");
        assertRefused("host samerole all 127.0.0.1/32 md5", "line 1: samerole is not supported");
        assertRefused("host all +admins 127.0.0.1/32 md5", "line 1: group names (+admins) are not supported");
        assertRefused("host all all 127.0.0.1/32 md5 map=x", "line 1: map= is only for cert and peer");
        assertRefused("host all all 127.0.0.1/32", "line 1: no method field");
        assertRefused("host all all 127.0.0.1/32 peer", "line 1: peer authentication is only for local lines");
        assertRefused("host all \"bob all 127.0.0.1/32 md5", "line 1: unterminated quoted name");
    }

    /** PgBouncer 1.25.2 loads the line and refuses a 127.0.0.1 client under it: no authentication method is found. */
    @Test
    void anIpv4MappedAddressIsTakenAsIpv6AndMatchesNoIpv4Client() throws Exception {
        HbaFile hba = hba("""
                host all all ::ffff:127.0.0.1/128 trust
                host all all ::ffff:10.0.0.0 ffff:ffff:ffff:ffff:ffff:ffff:ff00:0 trust
                """);
        assertEquals(HbaFile.Rule.NO_MATCH, hba.evaluate(InetAddress.getByName("127.0.0.1"), false, "db", "u"));
        assertEquals(HbaFile.Rule.NO_MATCH, hba.evaluate(InetAddress.getByName("10.0.0.1"), false, "db", "u"));
        assertRefused("host all all ::ffff:127.0.0.1/129 md5", "line 1: invalid mask /129");
        assertRefused("host all all 999.0.0.1/32 md5", "line 1: \"999.0.0.1\" is not an IP address");
        assertRefused("host all all [::1]/128 md5", "line 1: \"[::1]\" is not an IP address");
    }

    @Test
    void anAtFileThatCannotBeReadIsRefusedAtTheLineNamingIt() throws Exception {
        Path missing = dir.resolve("names.txt");
        assertRefused("host all all 127.0.0.1/32 md5\nhost all @names.txt 127.0.0.1/32 md5",
                "line 2: cannot read " + missing + ": no such file");
    }

    @Test
    void aControlCharacterIsRefusedNamingLineAndColumn() throws Exception {
        assertRefused("host all b\u2028ob 127.0.0.1/32 md5", "line 1: control character U+2028 at column 11 (the file"
                + " must be text)");
    }

    @Test
    void aByteThatIsNotUtf8IsRefusedNamingFileLineAndByte() throws Exception {
        Path file = dir.resolve("hba.conf");
        Files.write(file, "host all all 127.0.0.1/32 md5\r\nhost all b\u00e9b 127.0.0.1/32 md5\n"
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        HbaFormatException e = assertThrows(HbaFormatException.class, () -> HbaFile.load(file));
        assertEquals(file + " line 2: byte 0xE9 at column 11 is not UTF-8 (the file must be UTF-8)", e.getMessage());
    }

    @Test
    void identMapLetsASystemUserLogInAsTheUsersItNames() throws Exception {
        Path file = dir.resolve("ident.conf");
        Files.writeString(file, "# map system database\ncerts  alice.example  alice\ncerts ops all\n");
        IdentMap map = IdentMap.load(file);
        assertTrue(map.allows("certs", "alice.example", "alice"));
        assertFalse(map.allows("certs", "alice.example", "bob"));
        assertTrue(map.allows("certs", "ops", "bob"));
        assertFalse(map.allows("other", "ops", "bob"));
        Files.writeString(file, "certs alice\n");
        HbaFormatException e = assertThrows(HbaFormatException.class, () -> IdentMap.load(file));
        assertEquals(file + " line 1: expected map-name system-username database-username", e.getMessage());
    }

    private void assertRefused(String content, String expected) throws Exception {
        Path file = dir.resolve("bad_hba.conf");
        Files.writeString(file, content + "\n");
        HbaFormatException e = assertThrows(HbaFormatException.class, () -> HbaFile.load(file));
        assertTrue(e.getMessage().startsWith(file + " " + expected), e.getMessage());
    }

    private HbaFile hba(String content) throws Exception {
        Path file = dir.resolve("hba.conf");
        Files.writeString(file, content);
        return HbaFile.load(file);
    }

    private static AuthType method(HbaFile hba, String address, boolean tls, String database, String user)
            throws Exception {
        return hba.evaluate(InetAddress.getByName(address), tls, database, user).method();
    }
}
