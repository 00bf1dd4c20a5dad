package io.pgmux.proxy.prepared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A client's statement names, looked up by their bytes through one view read again for each message. */
class StatementNameTest {

    @Test
    void aViewOfTheSameBytesFindsTheKeptName() {
        Map<StatementName, String> names = new HashMap<>();
        names.put(kept("S_1"), "first");
        names.put(kept("S_2"), "second");
        StatementName view = new StatementName();

        assertEquals("second", names.get(read(view, "xxS_2yy", 2, 3)));
        assertEquals("first", names.get(read(view, "S_1", 0, 3)));
    }

    @Test
    void aViewGrowsForALongName() {
        String longName = "a statement name longer than the view's first array";
        Map<StatementName, String> names = Map.of(kept(longName), "long");

        assertEquals("long", names.get(read(new StatementName(), longName, 0, longName.length())));
    }

    @Test
    void namesDifferingInOneByteOfANonAsciiLetterDiffer() {
        Map<StatementName, String> names = Map.of(kept("état"), "lower");
        StatementName view = new StatementName();

        assertNull(names.get(read(view, "État", 0, "État".getBytes(StandardCharsets.UTF_8).length)));
        assertEquals("lower", names.get(read(view, "état", 0, "état".getBytes(StandardCharsets.UTF_8).length)));
    }

    @Test
    void theEmptyNameIsAName() {
        StatementName view = new StatementName();

        assertEquals(kept(""), view);
        assertEquals(kept("").hashCode(), view.hashCode());
    }

    @Test
    void aNameShowsAsItsText() {
        assertEquals("état", kept("état").toString());
    }

    @Test
    void readingReturnsTheViewItself() {
        StatementName view = new StatementName();

        assertSame(view, read(view, "S_1", 0, 3));
    }

    private static StatementName kept(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        return StatementName.copyOf(Unpooled.wrappedBuffer(bytes), 0, bytes.length);
    }

    private static StatementName read(StatementName view, String text, int index, int length) {
        ByteBuf frames = Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8));
        return view.read(frames, index, length);
    }
}
