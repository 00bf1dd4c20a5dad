package io.pgmux.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ServerUrlTest {

    @Test
    void readsEveryPartOfALibpqUrl() {
        assertEquals(new ServerUrl("127.0.0.1", 6543, "admin", "secret", "app"),
                ServerUrl.parse("postgresql://admin:secret@127.0.0.1:6543/app"));
    }

    @Test
    void acceptsThePostgresSchemeAlias() {
        assertEquals(new ServerUrl("localhost", 5433, "admin", "secret", "app"),
                ServerUrl.parse("postgres://admin:secret@localhost:5433/app"));
    }

    @Test
    void decodesPercentEncodedCredentials() {
        ServerUrl url = ServerUrl.parse("postgresql://ad%40min:p%3Aw%2Fd+x@127.0.0.1/app");
        assertEquals("ad@min", url.user());
        assertEquals("p:w/d+x", url.password());
    }

    @Test
    void readsUserAndPasswordFromJdbcUrlParameters() {
        assertEquals(new ServerUrl("127.0.0.1", 5432, "admin", "se&cret", "app"),
                ServerUrl.parse("jdbc:postgresql://127.0.0.1:5432/app?user=admin&password=se%26cret&sslmode=disable"));
    }

    @Test
    void defaultsToPort5432AndThePostgresDatabase() {
        assertEquals(new ServerUrl("127.0.0.1", 5432, "admin", "", "postgres"),
                ServerUrl.parse("postgresql://admin@127.0.0.1"));
    }

    @Test
    void rejectsAUrlWithoutAUser() {
        assertThrows(IllegalArgumentException.class, () -> ServerUrl.parse("postgresql://127.0.0.1:5432/app"));
    }

    @Test
    void rejectsSeveralHosts() {
        assertThrows(IllegalArgumentException.class,
                () -> ServerUrl.parse("postgresql://admin@127.0.0.1:5432,127.0.0.2:5432/app"));
    }

    @Test
    void rejectsOtherSchemes() {
        assertThrows(IllegalArgumentException.class, () -> ServerUrl.parse("mysql://admin:pw@127.0.0.1/app"));
    }

    @Test
    void keepsPasswordsOutOfErrorMessages() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> ServerUrl.parse("postgresql://admin:hunter2@127.0.0.1:1,127.0.0.2:2/app"));
        assertFalse(error.getMessage().contains("hunter2"), error.getMessage());
    }

    @Test
    void keepsPasswordsOutOfItsDescription() {
        assertFalse(ServerUrl.parse("postgresql://admin:hunter2@127.0.0.1/app").toString().contains("hunter2"));
    }
}
