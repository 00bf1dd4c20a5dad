package io.pgmux.proxy.parameters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which custom settings a statement text sets, as the proxy reads it before the statement goes to a server. */
class SettingStatementsTest {

    @ParameterizedTest
    @ValueSource(strings = {"SET app.tenant = 'b'", "set session APP.Tenant to 'b'", "SET LOCAL app.tenant = 1",
            "SET /* c */ app -- x\n . tenant = 1", "SET \"app\".\"tenant\" = 1", "SET \"app.tenant\" = 1",
            "RESET app.tenant", "SELECT pg_catalog.set_config('app.tenant', 'b', false)",
            "SELECT \"set_config\" ( 'APP.TENANT', $1, false)", "SELECT 1; SET app.tenant = 1",
            "DO $$BEGIN EXECUTE 'SET app.tenant = ''b'''; END$$",
            "DO $$BEGIN PERFORM set_config('app.tenant', 'b', false); END$$",
            "UPDATE t SET a = a + 1 WHERE b = 2; SET app.tenant = 1",
            "UPDATE settings SET reset = 1, offset_ = 2; RESET app.tenant",
            "SELECT x AS asset, \"set_config\"('app.tenant', 'b', false)"})
    void aCustomNameInTheTextIsRead(String sql) {
        ClientParameters parameters = parameters();
        int flags = new SettingStatements(parameters).scan(text(sql), 0, sql.length());
        assertEquals(SettingStatements.SETS_SETTINGS, flags);
        assertEquals(flags, scannedWithACopy(sql), sql);
        assertTrue(settingsRead(parameters).contains("current_setting('app.tenant', true)"), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT pg_catalog.set_config($1, $2, false)", "SELECT set_config(name, 'v', false)",
            "SELECT set_config(E'app.tenant', 'v', false)", "EXECUTE 'SET ' || quote_ident(n) || ' = 1'",
            "SELECT format('SET %I.%I = %L', a, b, c)", "SELECT U&\"\\0073et_config\"('app.tenant', 'x', false)",
            "SET U&\"app\".tenant = 1", "SET \"app.odd name\" = 1",
            "DO $$BEGIN EXECUTE 'SELECT set_config(''' || n || ''', ''x'', false)'; END$$"})
    void aSettingWhoseNameTheTextDoesNotShowIsUnknown(String sql) {
        int flags = new SettingStatements(parameters()).scan(text(sql), 0, sql.length());
        assertTrue((flags & SettingStatements.UNKNOWN_NAME) != 0, sql);
        assertEquals(flags, scannedWithACopy(sql), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "UPDATE t SET a = 1, b = 2 WHERE c OFFSET 3",
            "UPDATE t SET (a, b) = (1, 2)", "ALTER TABLE t SET (fillfactor = 50)", "SET statement_timeout = 1",
            "SET SESSION AUTHORIZATION x", "RESET ALL", "INSERT INTO settings VALUES ('reset')"})
    void aTextThatSetsNoCustomSettingReadsNoName(String sql) {
        ClientParameters parameters = parameters();
        int flags = new SettingStatements(parameters).scan(text(sql), 0, sql.length());
        assertEquals(0, flags, sql);
        assertEquals(0, scannedWithACopy(sql), sql);
        assertFalse(settingsRead(parameters).matches("(?s).*current_setting\\('[^']*', true\\).*"), sql);
    }

    /** The scan as the relay runs it: the text's bytes also in an array, at an offset (a message's header). */
    private static int scannedWithACopy(String sql) {
        byte[] bytes = sql.getBytes(StandardCharsets.UTF_8);
        byte[] copy = new byte[bytes.length + 5];
        System.arraycopy(bytes, 0, copy, 5, bytes.length);
        return new SettingStatements(parameters()).scan(text(sql), 0, sql.length(), copy, -5);
    }

    /**
     * The look for {@code set} and {@code &"} in an array reads eight positions at a time: what each statement says is
     * read wherever it starts, and a word cut by the end of the text is not read past it.
     */
    @Test
    void theLookForSetFindsItAtEveryAlignmentWithinTheText() {
        Map<String, Integer> flags = Map.of("SET app.tenant = 1", SettingStatements.SETS_SETTINGS,
                "reset APP.tenant", SettingStatements.SETS_SETTINGS,
                "SET U&\"app\".tenant = 1", SettingStatements.UNKNOWN_NAME, "UPDATE t SET a = 1", 0);
        flags.forEach((statement, expected) -> {
            for (int before = 0; before <= 17; before++) {
                for (int after = 0; after <= 17; after++) {
                    String sql = "SELECT 1;" + " ".repeat(before) + statement + ";" + " ".repeat(after);
                    assertEquals(expected, scannedWithACopy(sql), sql);
                }
            }
        });
        String cut = "SELECT 1; SE";
        byte[] copy = (cut + "T app.tenant = 1").getBytes(StandardCharsets.UTF_8);
        assertEquals(0, new SettingStatements(parameters()).scan(text(cut), 0, cut.length(), copy, 0),
                "a SET whose last letter lies past the text's end");
    }

    @Test
    void aCustomNamePastTheFollowedLimitIsUnknown() {
        ClientParameters parameters = parameters();
        SettingStatements statements = new SettingStatements(parameters);
        for (int i = 0; i < ClientParameters.MAX_FOLLOWED_SETTINGS; i++) {
            String sql = "SET app.n" + i + " = 1";
            assertEquals(SettingStatements.SETS_SETTINGS, statements.scan(text(sql), 0, sql.length()), sql);
        }
        String again = "SET app.n7 = 2";
        assertEquals(SettingStatements.SETS_SETTINGS, statements.scan(text(again), 0, again.length()),
                "a name already followed stays followed");
        String past = "SET app.one_too_many = 1";
        int flags = statements.scan(text(past), 0, past.length());
        assertTrue((flags & SettingStatements.UNKNOWN_NAME) != 0, "the client keeps its server instead");
    }

    private static ClientParameters parameters() {
        ClientParameters parameters = ClientParameters.fromStartup(Map.of(), Set.of());
        parameters.welcome(Map.of("server_version", "17.2"), Map.of());
        return parameters;
    }

    /** The text of the read of the settings that follows a SET, where each custom name is read by name. */
    private static String settingsRead(ClientParameters parameters) {
        ByteBuf out = parameters.sessionSettingsQuery(17).encode(ByteBufAllocator.DEFAULT);
        try {
            return out.toString(StandardCharsets.UTF_8);
        } finally {
            out.release();
        }
    }

    private static ByteBuf text(String sql) {
        return Unpooled.wrappedBuffer(sql.getBytes(StandardCharsets.UTF_8));
    }
}
