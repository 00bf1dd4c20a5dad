package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgmux.proxy.protocol.FrontendMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/**
 * What a server going away had not answered is sent again, unless it changed the client's statements as it passed:
 * a named Parse or Close, wherever it lies in a run of messages.
 */
class ResendBufferTest {
    private static final int LIMIT = 64 * 1024;

    @Test
    void aRunOfUnnamedMessagesIsKeptAndSentAgainWhole() {
        ResendBuffer buffer = linked();
        FrontendMessage run = run(parse(""), bind("", ""), execute(), sync());
        int bytes = run.content().readableBytes();

        buffer.keep(run, true);

        assertTrue(buffer.keeping());
        ArrayDeque<FrontendMessage> pending = new ArrayDeque<>();
        assertEquals(bytes, buffer.sendAgain(pending, 0));
        assertEquals(4, pending.size());
        pending.forEach(FrontendMessage::release);
        run.release();
    }

    @Test
    void aRunBindingANamedStatementIsKept() {
        ResendBuffer buffer = linked();
        FrontendMessage run = run(bind("", "S_1"), execute(), sync());

        buffer.keep(run, true);

        assertTrue(buffer.keeping());
        buffer.forget();
        run.release();
    }

    @Test
    void aRunWithANamedParseAfterItsFirstMessageIsNotKept() {
        ResendBuffer buffer = linked();
        FrontendMessage run = run(bind("", ""), execute(), parse("S_1"), sync());

        buffer.keep(run, true);

        assertFalse(buffer.keeping());
        assertEquals(1, run.refCnt(), "nothing of the run is held");
        run.release();
    }

    @Test
    void aRunWithANamedCloseAfterItsFirstMessageIsNotKept() {
        ResendBuffer buffer = linked();
        FrontendMessage run = run(execute(), message('C', cstring("SS_1")), sync());

        buffer.keep(run, true);

        assertFalse(buffer.keeping());
        run.release();
    }

    @Test
    void aNamedParseAloneIsNotKept() {
        ResendBuffer buffer = linked();
        FrontendMessage parse = run(parse("S_1"));

        buffer.keep(parse, true);

        assertFalse(buffer.keeping());
        assertEquals(1, parse.refCnt(), "nothing of the message is held");
        parse.release();
    }

    @Test
    void aNamedCloseAloneIsNotKept() {
        ResendBuffer buffer = linked();
        FrontendMessage close = run(message('C', cstring("SS_1")));

        buffer.keep(close, true);

        assertFalse(buffer.keeping());
        close.release();
    }

    @Test
    void anUnnamedParseAloneIsKept() {
        ResendBuffer buffer = linked();
        FrontendMessage parse = run(parse(""));

        buffer.keep(parse, true);

        assertTrue(buffer.keeping());
        buffer.forget();
        parse.release();
    }

    @Test
    void aNamedParseIsKeptWhenStatementsAreNotRenamed() {
        ResendBuffer buffer = linked();
        FrontendMessage run = run(sync(), parse("S_1"), sync());

        buffer.keep(run, false);

        assertTrue(buffer.keeping());
        buffer.forget();
        run.release();
    }

    @Test
    void severalMessagesAreSentAgainInTheirOrderAheadOfWhatWaits() {
        ResendBuffer buffer = linked();
        FrontendMessage[] kept = {query("SELECT 1"), query("SELECT 22"), query("SELECT 333")};
        int bytes = 0;
        for (FrontendMessage message : kept) {
            buffer.keep(message, true);
            bytes += message.content().readableBytes();
        }
        FrontendMessage waiting = query("SELECT 4444");
        ArrayDeque<FrontendMessage> pending = new ArrayDeque<>();
        pending.add(waiting);

        assertEquals(bytes, buffer.sendAgain(pending, 0));

        assertEquals(4, pending.size());
        for (String text : new String[] {"SELECT 1", "SELECT 22", "SELECT 333", "SELECT 4444"}) {
            FrontendMessage next = pending.poll();
            assertEquals(text, next.content().toString(5, text.length(), StandardCharsets.US_ASCII));
            next.release();
        }
        for (FrontendMessage message : kept) {
            message.release();
            assertEquals(0, message.refCnt(), "sent again once, released once");
        }
    }

    @Test
    void forgettingReleasesEveryMessageKept() {
        ResendBuffer buffer = linked();
        FrontendMessage[] kept = {query("SELECT 1"), query("SELECT 2"), query("SELECT 3")};
        for (FrontendMessage message : kept) {
            buffer.keep(message, true);
        }
        assertEquals(1, kept[0].refCnt(), "a short first message is copied, not retained");
        assertEquals(2, kept[1].refCnt(), "later ones are kept without a copy");
        assertEquals(2, kept[2].refCnt(), "later ones are kept without a copy");

        buffer.forget();

        for (FrontendMessage message : kept) {
            assertEquals(1, message.refCnt(), "given back");
            message.release();
        }
        assertFalse(buffer.keeping());
    }

    @Test
    void aShortFirstMessageIsCopiedAndSentAgainAsItWasAfterItsBufferWasReused() {
        ResendBuffer buffer = linked();
        FrontendMessage begin = query("BEGIN");
        buffer.keep(begin, false);
        // the read buffer it came in is used for the next read
        begin.content().setBytes(5, "XXXXX".getBytes(StandardCharsets.US_ASCII));
        begin.release();

        assertTrue(buffer.onlyOpensATransaction(), "the copy is read, not the buffer");
        ArrayDeque<FrontendMessage> pending = new ArrayDeque<>();
        buffer.sendAgain(pending, 0);
        FrontendMessage again = pending.poll();
        assertEquals("BEGIN", again.content().toString(5, 5, StandardCharsets.US_ASCII));
        assertEquals((byte) 'Q', again.type());
        assertTrue(again.content().isDirect(), "sent again from a buffer of its own, as a read would be");
        again.release();
    }

    @Test
    void aLongFirstMessageIsRetainedNotCopied() {
        ResendBuffer buffer = linked();
        FrontendMessage query = query("SELECT '" + "x".repeat(300) + "'");
        buffer.keep(query, false);
        assertEquals(2, query.refCnt());
        buffer.forget();
        assertEquals(1, query.refCnt());
        query.release();
    }

    @Test
    void aLoneQueryThatOnlyOpensATransactionIsOneToSendAgainAfterASilentClose() {
        for (String text : new String[] {"BEGIN", "begin;", "  BEGIN TRANSACTION ;\n", "Begin Work",
                "START TRANSACTION", "start\ttransaction isolation level repeatable read, read only;",
                "BEGIN ISOLATION LEVEL SERIALIZABLE DEFERRABLE"}) {
            assertTrue(opensOnly(query(text)), text);
        }
    }

    @Test
    void aQueryThatMayDoMoreThanOpenATransactionIsNot() {
        for (String text : new String[] {"BEGIN; INSERT INTO t VALUES (1)", "BEGINNING", "BEGIN -- comment",
                "BEGIN /* x */", "START", "STARTTRANSACTION", "START TRANSACTIONS", "INSERT INTO t VALUES (1)",
                "COMMIT", "", ";", "BEGIN ISOLATION LEVEL 'x'", "SELECT 'BEGIN'"}) {
            assertFalse(opensOnly(query(text)), text);
        }
    }

    @Test
    void aBeginWithAnotherMessageKeptAfterItIsNot() {
        ResendBuffer buffer = linked();
        FrontendMessage begin = query("BEGIN");
        FrontendMessage insert = query("INSERT INTO t VALUES (1)");
        buffer.keep(begin, false);
        buffer.keep(insert, false);
        assertFalse(buffer.onlyOpensATransaction());
        buffer.forget();
        begin.release();
        insert.release();
    }

    @Test
    void aBeginInAnExtendedProtocolRunIsNot() {
        ResendBuffer buffer = linked();
        FrontendMessage run = run(parse(""), bind("", ""), execute(), sync());
        buffer.keep(run, true);
        assertFalse(buffer.onlyOpensATransaction(), "only a Query's text is read");
        buffer.forget();
        run.release();
    }

    @Test
    void theFirstPieceOfALongQueryStillArrivingIsNot() {
        ByteBuf whole = message('Q', cstring("BEGIN" + " ".repeat(100_000)));
        FrontendMessage piece = new FrontendMessage((byte) 'Q', whole.retainedSlice(0, 2048), false);
        whole.release();
        assertFalse(opensOnly(piece));
    }

    @Test
    void aBeginKeptFromAnIndexOtherThanZeroIs() {
        ByteBuf read = Unpooled.buffer();
        read.writeBytes(cstring("garbage"));
        ByteBuf begin = message('Q', cstring("BEGIN"));
        int start = read.writerIndex();
        read.writeBytes(begin);
        begin.release();
        read.readerIndex(start);
        assertTrue(opensOnly(new FrontendMessage((byte) 'Q', read, false)));
    }

    /** Whether {@code message}, kept alone, only opens a transaction; the buffer then lets it go. */
    private static boolean opensOnly(FrontendMessage message) {
        ResendBuffer buffer = linked();
        buffer.keep(message, false);
        boolean only = buffer.onlyOpensATransaction();
        buffer.forget();
        message.release();
        return only;
    }

    private static FrontendMessage query(String text) {
        return new FrontendMessage((byte) 'Q', message('Q', cstring(text)), false);
    }

    @Test
    void aRequestSentAgainIsKeptAgainOnAServerConnectedBeforeItsFirstServerWentAway() {
        ResendBuffer buffer = keptAndSentAgainAt(100);

        buffer.linked(true, 99);

        assertTrue(buffer.keeping(), "a restart's second stale server fails it without a word");
        keepAndSendAgain(buffer, 200);
        buffer.linked(true, 150);
        assertFalse(buffer.keeping(), "the first server's time counts, not the last one's");
    }

    @Test
    void aRequestSentAgainIsNotKeptOnAServerConnectedAfterItsFirstServerWentAway() {
        ResendBuffer buffer = keptAndSentAgainAt(100);

        buffer.linked(true, 100);

        assertFalse(buffer.keeping());
        buffer.linked(true, 100);
        assertTrue(buffer.keeping(), "the next request starts afresh");
        buffer.forget();
    }

    @Test
    void anAnswerEndsWhatASendingAgainAllowed() {
        ResendBuffer buffer = keptAndSentAgainAt(100);
        buffer.linked(true, 50);

        buffer.answered();
        buffer.linked(true, 50);
        keepAndSendAgain(buffer, 300);

        buffer.linked(true, 200);
        assertTrue(buffer.keeping(), "a new request's first server went away at 300");
        buffer.forget();
    }

    /** A buffer whose one Query was sent again because its server was found gone at {@code goneNanos}. */
    private static ResendBuffer keptAndSentAgainAt(long goneNanos) {
        ResendBuffer buffer = linked();
        keepAndSendAgain(buffer, goneNanos);
        return buffer;
    }

    /** Keeps a Query in {@code buffer} and sends it again, its server found gone at {@code goneNanos}. */
    private static void keepAndSendAgain(ResendBuffer buffer, long goneNanos) {
        FrontendMessage query = query("SELECT 1");
        buffer.keep(query, false);
        ArrayDeque<FrontendMessage> pending = new ArrayDeque<>();
        buffer.sendAgain(pending, goneNanos);
        pending.forEach(FrontendMessage::release);
        query.release();
    }

    private static ResendBuffer linked() {
        ResendBuffer buffer = new ResendBuffer(LIMIT);
        buffer.linked(true, 0);
        return buffer;
    }

    private static FrontendMessage run(ByteBuf... messages) {
        return new FrontendMessage(messages[0].getByte(0), Unpooled.wrappedBuffer(messages), messages.length > 1);
    }

    private static ByteBuf parse(String name) {
        return message('P', cstring(name), cstring("SELECT 1"), new byte[] {0, 0});
    }

    private static ByteBuf bind(String portal, String statement) {
        return message('B', cstring(portal), cstring(statement), new byte[] {0, 0, 0, 0, 0, 0});
    }

    private static ByteBuf execute() {
        return message('E', cstring(""), new byte[] {0, 0, 0, 0});
    }

    private static ByteBuf sync() {
        return message('S');
    }

    private static ByteBuf message(char type, byte[]... body) {
        ByteBuf out = Unpooled.buffer();
        out.writeByte(type);
        out.writeInt(0);
        for (byte[] part : body) {
            out.writeBytes(part);
        }
        out.setInt(1, out.readableBytes() - 1);
        return out;
    }

    private static byte[] cstring(String s) {
        return (s + "\0").getBytes(StandardCharsets.UTF_8);
    }
}
