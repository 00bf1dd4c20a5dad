package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Before authentication a client learns nothing about which users and databases exist or how full the proxy is:
 * every startup gets the same challenge, and a refusal comes only after a right password.
 */
@PostgresTest
class UserEnumerationTest {
    private final TestDatabase db;

    UserEnumerationTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void anUnknownDatabaseIsChallengedLikeAKnownOneAndRefusedOnlyAfterTheRightPassword() throws Exception {
        try (PgMuxProxy proxy = start(b -> { })) {
            assertEquals("password authentication failed",
                    refusalAfterPassword(proxy, "nosuchdb", ProxyFixture.USER, "wrong"));
            assertEquals("password authentication failed", refusalAfterPassword(proxy, "nosuchdb", "nobody", "x"));
            assertEquals("no such database: nosuchdb",
                    refusalAfterPassword(proxy, "nosuchdb", ProxyFixture.USER, ProxyFixture.PASSWORD));
        }
    }

    @Test
    @SuppressWarnings("try") // the first client only has to stay connected
    void aFullProxyChallengesKnownAndUnknownUsersAlikeAndRefusesOnlyAfterTheRightPassword() throws Exception {
        try (PgMuxProxy proxy = start(b -> b.maxClientConn(1));
                RawClient first = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            assertEquals("password authentication failed", refusalAfterPassword(proxy, db.name(), "nobody", "x"));
            assertEquals("password authentication failed",
                    refusalAfterPassword(proxy, db.name(), ProxyFixture.USER, "wrong"));
            assertEquals("no more connections allowed (max_client_conn)",
                    refusalAfterPassword(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD));
        }
    }

    @Test
    void md5ChallengesKnownAndUnknownUsersOfKnownAndUnknownDatabasesAlike() throws Exception {
        try (PgMuxProxy proxy = start(b -> b.authType(AuthType.MD5))) {
            for (String database : List.of(db.name(), "nosuchdb")) {
                for (String user : List.of(ProxyFixture.USER, "nobody")) {
                    try (RawClient c = new RawClient(proxy.port())) {
                        c.startup(Map.of("user", user, "database", database));
                        RawClient.Message challenge = c.read();
                        assertEquals('R', challenge.type(), user + "@" + database);
                        assertEquals(5, challenge.body()[3], user + "@" + database + ": AuthenticationMD5Password");
                    }
                }
            }
        }
    }

    private PgMuxProxy start(Consumer<ProxyBuilder> settings) {
        return ProxyFixture.start(db, PoolMode.TRANSACTION, b -> {
            b.authType(AuthType.PLAIN);
            settings.accept(b);
        });
    }

    /** Logs in with a cleartext password and returns the message of the FATAL error that ends the login. */
    private static String refusalAfterPassword(PgMuxProxy proxy, String database, String user, String password)
            throws Exception {
        try (RawClient c = new RawClient(proxy.port())) {
            c.startup(Map.of("user", user, "database", database));
            RawClient.Message challenge = c.read();
            assertEquals('R', challenge.type(), "the answer to the startup of " + user + "@" + database);
            assertEquals(3, challenge.body()[3], "AuthenticationCleartextPassword");
            c.send('p', RawClient.cstring(password));
            List<RawClient.Message> rest = c.readUntilClosed();
            RawClient.Message error = rest.stream().filter(m -> m.type() == 'E').findFirst()
                    .orElseThrow(() -> new AssertionError("no error in " + RawClient.types(rest)));
            return error.field('M');
        }
    }
}
