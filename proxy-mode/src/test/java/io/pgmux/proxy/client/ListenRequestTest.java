package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Which Query texts the listener hub answers, and the channel each names as the server would. */
class ListenRequestTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "LISTEN jobs|true|jobs",
        "listen Jobs;|true|jobs",
        "  LISTEN\tjobs_2$x ;  |true|jobs_2$x",
        "LISTEN \"Mixed Case\"|true|Mixed Case",
        "LISTEN \"with \"\"quote\"\"\"|true|with \"quote\"",
        "UNLISTEN jobs|false|jobs",
        "unlisten *;|false|",
    })
    void aLoneListenOrUnlistenIsAnswered(String sql, boolean listen, String channel) {
        ListenRequest request = ListenRequest.parse(body(sql));
        assertEquals(new ListenRequest(listen, channel), request);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "LISTEN", "LISTEN *", "LISTENjobs", "LISTEN jobs; SELECT 1", "LISTEN jobs -- comment", "/* c */ LISTEN jobs",
        "LISTEN \"\"", "LISTEN \"open", "LISTEN 1abc", "NOTIFY jobs", "BEGIN; LISTEN jobs; COMMIT", "LISTEN jobs;;",
        "LISTEN caf\u00e9", "LISTEN \"caf\u00e9\"", "LISTEN \"a\u0000b\"", "UNLISTEN \"\u0000\"",
        "LISTEN a234567890123456789012345678901234567890123456789012345678901234",
    })
    void anythingElseGoesToTheServer(String sql) {
        assertNull(ListenRequest.parse(body(sql)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "LISTEN jobs|true|jobs", "'  unlisten jobs'|false|jobs", "'\tListen jobs;'|true|jobs",
    })
    void anUnnamedParseOfALoneListenOrUnlistenIsAnswered(String sql, boolean listen, String channel) {
        assertEquals(new ListenRequest(listen, channel), ListenRequest.parseUnnamed(parseBody("", sql)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "NOTIFY jobs", "  ", "", "LOCK t", "UPDATE t SET a = 1"})
    void anUnnamedParseOfAnythingElseGoesToTheServer(String sql) {
        assertNull(ListenRequest.parseUnnamed(parseBody("", sql)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"s1", "listen"})
    void aNamedParseOfAListenGoesToTheServer(String name) {
        assertNull(ListenRequest.parseUnnamed(parseBody(name, "LISTEN jobs")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"jobs|LISTEN \"jobs\"", "a\"b|LISTEN \"a\"\"b\""})
    void theHubListensToTheChannelQuoted(String channel, String sql) {
        assertEquals(sql, new ListenRequest(true, channel).sql());
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0000b", "caf\u00e9", "", "a234567890123456789012345678901234567890123456789012345678901234"})
    void noRequestForTheHubHoldsANameItsConnectionCannotRun(String channel) {
        assertThrows(IllegalArgumentException.class, () -> new ListenRequest(true, channel));
    }

    /** A Parse body: the statement's name, its text, and no parameter types. */
    private static ByteBuf parseBody(String name, String sql) {
        return Unpooled.buffer().writeBytes(name.getBytes(StandardCharsets.UTF_8)).writeByte(0)
                .writeBytes(sql.getBytes(StandardCharsets.UTF_8)).writeByte(0).writeShort(0);
    }

    private static ByteBuf body(String sql) {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        return Unpooled.buffer().writeBytes(text).writeByte(0);
    }
}
