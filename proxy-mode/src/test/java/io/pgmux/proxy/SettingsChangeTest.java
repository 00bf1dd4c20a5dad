package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What one RELOAD or SET changes, read from the configuration in effect and the next. */
class SettingsChangeTest {

    private static ProxyBuilder proxy() {
        return PgMuxProxy.builder().database("app", "postgresql://u@127.0.0.1:5432/app");
    }

    private static SettingsChange between(ProxyConfiguration before, ProxyConfiguration after) {
        return SettingsChange.between(before, after, after.settings());
    }

    @Test
    void aReloadedSettingThatTakesARestartIsNamedAndAReloadableOneIsNot() {
        ProxyConfiguration before = proxy().configuration();
        ProxyConfiguration loaded = proxy().set("listen_port", "6433").set("default_pool_size", "7").configuration();
        SettingsChange change = SettingsChange.between(before, before.reloaded(loaded), loaded.settings());
        assertEquals(List.of("listen_port"), change.restartOnly());
    }

    @Test
    void databasesAreAddedChangedAndRemovedByName() {
        ProxyConfiguration before = proxy().database("old", "postgresql://u@127.0.0.1:5432/old")
                .database("kept", "postgresql://u@127.0.0.1:5432/kept").configuration();
        ProxyConfiguration after = proxy().database("kept", "postgresql://u@127.0.0.1:5433/kept")
                .database("new", "postgresql://u@127.0.0.1:5432/new").configuration();
        SettingsChange change = between(before, after);
        assertEquals(List.of("new"), change.added());
        assertEquals(List.of("kept"), change.changed());
        assertEquals(List.of("old"), change.removed());
    }

    @Test
    void theFallbackEntryIsNoDatabaseOfItsOwn() {
        SettingsChange change = between(proxy().configuration(),
                proxy().database("*", "postgresql://u@127.0.0.1:5432/*").configuration());
        assertEquals(List.of(), change.added());
    }

    @Test
    void aServerTlsSettingChangedWhileTlsToServersIsAllowedRenewsTheServers() {
        SettingsChange change = between(proxy().configuration(),
                proxy().set("server_tls_protocols", "tlsv1.3").configuration());
        assertTrue(change.serverTlsChanged());
        assertEquals(List.of(), change.changed(), "the databases' targets stay the same");
    }

    @Test
    void aServerTlsSettingChangedWhileTlsToServersIsOffRenewsNothing() {
        SettingsChange change = between(proxy().set("server_tls_sslmode", "disable").configuration(),
                proxy().set("server_tls_sslmode", "disable").set("server_tls_protocols", "tlsv1.3").configuration());
        assertFalse(change.serverTlsChanged());
    }

    @Test
    void turningTlsToServersOnChangesEveryDatabaseWithoutItsOwnSslmode() {
        SettingsChange change = between(proxy().set("server_tls_sslmode", "disable").configuration(),
                proxy().set("server_tls_sslmode", "require").configuration());
        assertTrue(change.serverTlsChanged());
        assertEquals(List.of("app"), change.changed());
    }
}
