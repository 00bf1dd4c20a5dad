package io.pgmux.proxy.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class MessageCodecTest {

    private static <T> T decodeBody(EncodableMessage message, java.util.function.Function<ByteBuf, T> decoder) {
        ByteBuf body = Bytes.bodyOf(message);
        try {
            return decoder.apply(body);
        } finally {
            body.release();
        }
    }

    @Test
    void readyForQueryIsSixBytes() {
        assertEquals("5a0000000549", Bytes.encoded(ReadyForQuery.IDLE));
        assertEquals("5a0000000554", Bytes.encoded(ReadyForQuery.IN_TRANSACTION));
        assertEquals("5a0000000545", Bytes.encoded(ReadyForQuery.FAILED_TRANSACTION));
    }

    @Test
    void readyForQueryDecodesToSharedInstances() {
        for (ReadyForQuery.TransactionStatus status : ReadyForQuery.TransactionStatus.values()) {
            assertSame(ReadyForQuery.of(status), decodeBody(ReadyForQuery.of(status), ReadyForQuery::decode));
        }
    }

    @Test
    void readyForQueryRejectsUnknownStatus() {
        ByteBuf body = Bytes.of().byte1('X').body();
        assertThrows(ProtocolViolationException.class, () -> ReadyForQuery.decode(body));
        body.release();
    }

    @Test
    void authenticationOkAndMd5PasswordHaveTheDocumentedLayout() {
        assertEquals("520000000800000000", Bytes.encoded(Authentication.Ok.INSTANCE));
        assertEquals("520000000c0000000501020304",
                Bytes.encoded(new Authentication.MD5Password(new byte[] {1, 2, 3, 4})));
        assertEquals("520000000800000003", Bytes.encoded(Authentication.CleartextPassword.INSTANCE));
    }

    @Test
    void authenticationSaslListsMechanismsWithATerminator() {
        String expected = "52" + "00000017" + "0000000a" + Bytes.hex(Unpooled.wrappedBuffer(
                "SCRAM-SHA-256".getBytes(StandardCharsets.US_ASCII))) + "00" + "00";
        assertEquals(expected, Bytes.encoded(new Authentication.SASL(List.of("SCRAM-SHA-256"))));
    }

    @Test
    void everyAuthenticationRequestRoundTrips() {
        assertSame(Authentication.Ok.INSTANCE, decodeBody(Authentication.Ok.INSTANCE, Authentication::decode));
        assertSame(Authentication.CleartextPassword.INSTANCE,
                decodeBody(Authentication.CleartextPassword.INSTANCE, Authentication::decode));
        Authentication.MD5Password md5 = (Authentication.MD5Password) decodeBody(
                new Authentication.MD5Password(new byte[] {9, 8, 7, 6}), Authentication::decode);
        assertArrayEquals(new byte[] {9, 8, 7, 6}, md5.salt());
        Authentication.SASL sasl = (Authentication.SASL) decodeBody(
                new Authentication.SASL(List.of("SCRAM-SHA-256-PLUS", "SCRAM-SHA-256")), Authentication::decode);
        assertEquals(List.of("SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"), sasl.mechanisms());
        Authentication.SASLContinue cont = (Authentication.SASLContinue) decodeBody(
                new Authentication.SASLContinue("r=abc,s=c2FsdA==,i=4096".getBytes()), Authentication::decode);
        assertEquals("r=abc,s=c2FsdA==,i=4096", new String(cont.data()));
        Authentication.SASLFinal fin = (Authentication.SASLFinal) decodeBody(
                new Authentication.SASLFinal("v=xyz".getBytes()), Authentication::decode);
        assertEquals("v=xyz", new String(fin.data()));
    }

    @Test
    void unknownAuthenticationRequestIsReportedWithItsCode() {
        ByteBuf body = Bytes.of().int32(7).raw(new byte[] {1, 2}).body();
        Authentication request = Authentication.decode(body);
        body.release();
        assertInstanceOf(Authentication.Unsupported.class, request);
        assertEquals(7, request.code());
    }

    @Test
    void md5RequestWithShortSaltIsAViolation() {
        ByteBuf body = Bytes.of().int32(5).raw(new byte[] {1, 2}).body();
        assertThrows(ProtocolViolationException.class, () -> Authentication.decode(body));
        body.release();
    }

    @Test
    void errorResponseCarriesSeverityCodeMessageDetailAndHint() {
        ErrorResponse sent = ErrorResponse.fatal("08P01", "no more connections allowed (max_client_conn)")
                .withDetail("100 clients").withHint("raise max_client_conn");
        ErrorResponse received = decodeBody(sent, ErrorResponse::decode);
        assertEquals("FATAL", received.severity());
        assertTrue(received.isFatal());
        assertEquals("08P01", received.sqlState());
        assertEquals("no more connections allowed (max_client_conn)", received.message());
        assertEquals("100 clients", received.detail());
        assertEquals("raise max_client_conn", received.hint());
        assertEquals(sent, received);
    }

    @Test
    void errorResponseFieldsAreWrittenAsCodeAndCString() {
        assertEquals("45" + "0000001d" + "53" + "4552524f5200" + "56" + "4552524f5200" + "43" + "343250303500"
                        + "4d" + "7800" + "00",
                Bytes.encoded(ErrorResponse.error("42P05", "x")));
    }

    @Test
    void errorResponseFromAServerKeepsEveryField() {
        ByteBuf body = Bytes.of().byte1('S').cstring("ERREUR").byte1('V').cstring("ERROR").byte1('C')
                .cstring("42P01").byte1('M').cstring("relation \"t\" does not exist").byte1('P').cstring("15")
                .byte1(0).body();
        ErrorResponse error = ErrorResponse.decode(body);
        body.release();
        assertEquals("ERROR", error.severity(), "the untranslated severity wins");
        assertFalse(error.isFatal());
        assertEquals("15", error.fields().get('P'));
        assertNull(error.detail());
    }

    @Test
    void errorResponseWithoutTerminatorIsAViolation() {
        ByteBuf body = Bytes.of().byte1('S').cstring("ERROR").body();
        assertThrows(ProtocolViolationException.class, () -> ErrorResponse.decode(body));
        body.release();
    }

    @Test
    void noticeResponseRoundTrips() {
        NoticeResponse notice = NoticeResponse.notice("00000",
                "No server connection available in postgres backend, client being queued");
        NoticeResponse received = decodeBody(notice, NoticeResponse::decode);
        assertEquals("NOTICE", received.severity());
        assertEquals(notice.message(), received.message());
        assertEquals('N', Bytes.bodyOf(notice).readerIndex(0).readByte());
    }

    @Test
    void parameterStatusBackendKeyDataAndCommandCompleteRoundTrip() {
        ParameterStatus status = new ParameterStatus("client_encoding", "UTF8");
        assertEquals(status, decodeBody(status, ParameterStatus::decode));
        BackendKeyData key30 = new BackendKeyData(12345, new byte[] {1, 2, 3, 4});
        assertEquals(key30, decodeBody(key30, BackendKeyData::decode));
        BackendKeyData key32 = new BackendKeyData(1, new byte[32]);
        assertEquals(key32, decodeBody(key32, BackendKeyData::decode));
        CommandComplete complete = new CommandComplete("SELECT 5");
        assertEquals(complete, decodeBody(complete, CommandComplete::decode));
        NegotiateProtocolVersion negotiate = new NegotiateProtocolVersion(0, List.of("_pq_.foo"));
        assertEquals(negotiate, decodeBody(negotiate, NegotiateProtocolVersion::decode));
    }

    @Test
    void aKeyGivesBackAndEncodesItsSecretByteForByteWhateverItsLength() {
        byte[] short30 = {(byte) 0xFF, 0x00, (byte) 0x80, 0x7F};
        BackendKeyData key30 = new BackendKeyData(-2, short30);
        assertArrayEquals(short30, key30.secretKey());
        assertEquals("4b0000000cfffffffeff00807f", Bytes.encoded(key30));
        byte[] long32 = new byte[32];
        long32[31] = (byte) 0xC3;
        assertArrayEquals(long32, new BackendKeyData(7, long32).secretKey());
    }

    /** Every logged-in client holds the 4-byte key it was given: one small object, no array beside it. */
    @Test
    void aFourByteKeyIsOneObjectOfAtMost32Bytes() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        byte[] secret = {1, 2, 3, 4};
        BackendKeyData[] kept = new BackendKeyData[10_000];
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < kept.length; i++) {
            kept[i] = new BackendKeyData(i, secret);
        }
        long perKey = (threads.getThreadAllocatedBytes(thread) - before) / kept.length;
        assertTrue(perKey <= 32, perKey + " B allocated per key");
    }

    @Test
    void aCancelRequestMatchesTheKeyOfItsProcessIdAndSecretOnly() {
        byte[] secret = {(byte) 0x9A, 1, 2, (byte) 0xF3};
        BackendKeyData key = new BackendKeyData(42, secret);
        assertTrue(new CancelRequest(42, secret).matches(key));
        assertFalse(new CancelRequest(43, secret).matches(key));
        assertFalse(new CancelRequest(42, new byte[] {(byte) 0x9A, 1, 2, (byte) 0xF2}).matches(key));
        assertFalse(new CancelRequest(42, new byte[] {(byte) 0x9A, 1, 2, (byte) 0xF3, 0}).matches(key));
        byte[] long32 = new byte[32];
        long32[0] = 5;
        BackendKeyData longKey = new BackendKeyData(42, long32);
        assertTrue(new CancelRequest(42, long32).matches(longKey));
        assertFalse(new CancelRequest(42, new byte[32]).matches(longKey));
        assertFalse(new CancelRequest(42, new byte[] {5, 0, 0, 0}).matches(longKey));
    }

    @Test
    void keysAreEqualWhenProcessIdAndSecretAre() {
        assertEquals(new BackendKeyData(1, new byte[] {1, 2, 3, 4}), new BackendKeyData(1, new byte[] {1, 2, 3, 4}));
        assertEquals(new BackendKeyData(1, new byte[] {1, 2, 3, 4}).hashCode(),
                new BackendKeyData(1, new byte[] {1, 2, 3, 4}).hashCode());
        assertNotEquals(new BackendKeyData(1, new byte[] {1, 2, 3, 4}), new BackendKeyData(1, new byte[] {1, 2, 3, 5}));
        assertNotEquals(new BackendKeyData(1, new byte[4]), new BackendKeyData(2, new byte[4]));
        assertNotEquals(new BackendKeyData(1, new byte[4]), new BackendKeyData(1, new byte[5]));
        assertEquals(new BackendKeyData(1, new byte[8]), new BackendKeyData(1, new byte[8]));
    }

    @Test
    void emptyBodyMessagesAreFiveBytes() {
        assertEquals("3100000004", Bytes.encoded(ParseComplete.INSTANCE));
        assertEquals("3300000004", Bytes.encoded(CloseComplete.INSTANCE));
        assertEquals("4900000004", Bytes.encoded(EmptyQueryResponse.INSTANCE));
        assertEquals("5300000004", Bytes.encoded(Sync.INSTANCE));
        assertEquals("4800000004", Bytes.encoded(Flush.INSTANCE));
        assertEquals("5800000004", Bytes.encoded(Terminate.INSTANCE));
    }

    @Test
    void sslRequestAndCancelRequestHaveTheDocumentedCodes() {
        assertEquals("0000000804d2162f", Bytes.encoded(SslRequest.INSTANCE));
        assertEquals("0000001004d2162e0000002a01020304",
                Bytes.encoded(new CancelRequest(42, new byte[] {1, 2, 3, 4})));
    }

    @Test
    void parseDecodesNameQueryAndParameterTypes() {
        Parse parse = new Parse("s1", "SELECT $1, $2", new int[] {23, 0});
        Parse decoded = decodeBody(parse, Parse::decode);
        assertEquals("s1", decoded.statementName());
        assertEquals("SELECT $1, $2", decoded.query());
        assertArrayEquals(new int[] {23, 0}, decoded.parameterTypes());
        assertTrue(decoded.sameStatementAs(new Parse("other", "SELECT $1, $2", new int[] {23, 0})));
        assertFalse(decoded.sameStatementAs(new Parse("s1", "SELECT $1, $2", new int[] {23, 25})));
    }

    @Test
    void parseWithMoreTypesThanBytesIsAViolation() {
        ByteBuf body = Bytes.of().cstring("").cstring("SELECT 1").int16(3).int32(23).body();
        assertThrows(ProtocolViolationException.class, () -> Parse.decode(body));
        body.release();
    }

    @Test
    void theUnnamedStatementsParseIsToldWithoutDecodingAndOnlyWhenWellFormed() {
        Function<FrontendMessage, Boolean> unnamed = Parse::isUnnamed;
        assertTrue(read('P', Bytes.of().cstring("").cstring("SELECT $1").int16(1).int32(23), unnamed));
        assertTrue(read('P', Bytes.of().cstring("").cstring("SELECT 1").int16(0), unnamed));
        assertFalse(read('P', Bytes.of().cstring("s1").cstring("SELECT 1").int16(0), unnamed));
        assertFalse(read('P', Bytes.of().cstring("").cstring("SELECT 1").int16(3).int32(23), unnamed));
        assertFalse(read('P', Bytes.of().cstring("").raw(new byte[] {'S', 'E'}), unnamed));
    }

    @Test
    void aBindOfTheUnnamedStatementIsToldWhateverItsPortal() {
        Function<FrontendMessage, Boolean> unnamed = Bind::bindsUnnamedStatement;
        assertTrue(read('B', Bytes.of().cstring("p1").cstring("").int16(0).int16(0).int16(0), unnamed));
        assertFalse(read('B', Bytes.of().cstring("").cstring("s1").int16(0).int16(0).int16(0), unnamed));
        assertFalse(read('B', Bytes.of().raw(new byte[] {'p'}), unnamed));
    }

    @Test
    void aDescribeOfAPortalOrOfTheUnnamedStatementPassesThrough() {
        Function<FrontendMessage, StatementOrPortal> passing = Describe::passingThrough;
        assertSame(StatementOrPortal.PORTAL, read('D', Bytes.of().byte1('P').cstring("p1"), passing));
        assertSame(StatementOrPortal.STATEMENT, read('D', Bytes.of().byte1('S').cstring(""), passing));
        assertNull(read('D', Bytes.of().byte1('S').cstring("s1"), passing));
        assertNull(read('D', Bytes.of().byte1('X').cstring(""), passing));
        assertNull(read('D', Bytes.of().byte1('P').cstring("p1").byte1(0), passing));
    }

    /** What {@code read} tells of a frontend message as the decoder passes it on. */
    private static <T> T read(char type, Bytes body, Function<FrontendMessage, T> read) {
        FrontendMessage message = new FrontendMessage((byte) type, body.message(type));
        try {
            return read.apply(message);
        } finally {
            message.release();
        }
    }

    @Test
    void queryCloseAndDescribeRoundTrip() {
        assertEquals(new Query("SELECT 1"), decodeBody(new Query("SELECT 1"), Query::decode));
        Close close = new Close(StatementOrPortal.STATEMENT, "s1");
        assertEquals(close, decodeBody(close, Close::decode));
        Describe describe = new Describe(StatementOrPortal.PORTAL, "");
        assertEquals(describe, decodeBody(describe, Describe::decode));
    }

    @Test
    void closeWithAnUnknownTargetIsAViolation() {
        ByteBuf body = Bytes.of().byte1('X').cstring("s1").body();
        assertThrows(ProtocolViolationException.class, () -> Close.decode(body));
        body.release();
    }

    @Test
    void bindDecodesPortalAndStatementName() {
        ByteBuf body = Bytes.of().cstring("p1").cstring("s1").int16(0).int16(1).int32(1).raw(new byte[] {'7'})
                .int16(0).body();
        assertEquals(new Bind("p1", "s1"), Bind.decode(body));
        body.release();
    }

    @Test
    void bindRenameKeepsParametersByteForByte() {
        byte[] latin1Value = {(byte) 0xE9, 0, (byte) 0xFF};
        ByteBuf original = Bytes.of().cstring("").cstring("client_stmt").int16(1).int16(1).int16(1)
                .int32(latin1Value.length).raw(latin1Value).int16(1).int16(1).message('B');
        String tailHex = Bytes.hex(original.slice(1 + 4 + 1 + "client_stmt".length() + 1,
                original.readableBytes() - (1 + 4 + 1 + "client_stmt".length() + 1)));
        FrontendMessage bind = new FrontendMessage(FrontendMessage.BIND, original);
        ByteBuf renamed = Bind.renameStatement(ByteBufAllocator.DEFAULT, bind, "PGMUX_17");
        try {
            ByteBuf expected = Bytes.of().cstring("").cstring("PGMUX_17").message('B');
            int headLength = expected.readableBytes();
            expected.release();
            assertEquals('B', renamed.getByte(0));
            assertEquals(renamed.readableBytes() - 1, renamed.getInt(1));
            ByteBuf body = renamed.slice(5, renamed.readableBytes() - 5);
            assertEquals(new Bind("", "PGMUX_17"), Bind.decode(body));
            assertEquals(tailHex, Bytes.hex(renamed.slice(headLength, renamed.readableBytes() - headLength)));
        } finally {
            renamed.release();
            bind.release();
        }
        assertEquals(0, original.refCnt());
    }

    @Test
    void bindRenameKeepsALargeParameterByteForByte() {
        byte[] value = new byte[64 * 1024];
        new java.util.Random(7).nextBytes(value);
        ByteBuf original = Bytes.of().cstring("").cstring("client_stmt").int16(0).int16(1)
                .int32(value.length).raw(value).int16(0).message('B');
        int oldHead = 1 + 4 + 1 + "client_stmt".length() + 1;
        String tailHex = Bytes.hex(original.slice(oldHead, original.readableBytes() - oldHead));
        FrontendMessage bind = new FrontendMessage(FrontendMessage.BIND, original);
        ByteBuf renamed = Bind.renameStatement(ByteBufAllocator.DEFAULT, bind, "PGMUX_3");
        try {
            int newHead = 1 + 4 + 1 + "PGMUX_3".length() + 1;
            assertEquals(renamed.readableBytes() - 1, renamed.getInt(1));
            assertEquals(tailHex, Bytes.hex(renamed.slice(newHead, renamed.readableBytes() - newHead)));
        } finally {
            renamed.release();
            bind.release();
        }
        assertEquals(0, original.refCnt());
    }

    @Test
    void parseRenameKeepsQueryAndTypes() {
        ByteBuf wire = Unpooled.buffer();
        new Parse("mine", "SELECT 'é'", new int[] {25}).encode(wire);
        FrontendMessage parse = new FrontendMessage(FrontendMessage.PARSE, wire);
        ByteBuf renamed = Parse.renameStatement(ByteBufAllocator.DEFAULT, parse, "PGMUX_1");
        try {
            String expected = Bytes.encoded(new Parse("PGMUX_1", "SELECT 'é'", new int[] {25}));
            assertEquals(expected, Bytes.hex(renamed));
        } finally {
            renamed.release();
            parse.release();
        }
    }

    @Test
    void renamingAMessageOfAnotherTypeIsAProgrammingError() {
        FrontendMessage sync = new FrontendMessage(FrontendMessage.SYNC, Bytes.of().message('S'));
        assertThrows(IllegalArgumentException.class,
                () -> Bind.renameStatement(ByteBufAllocator.DEFAULT, sync, "x"));
        sync.release();
    }

    @Test
    void stringsWithNulCannotBeEncoded() {
        assertThrows(IllegalArgumentException.class, () -> Bytes.encoded(new Query("a\0b")));
    }

    @Test
    void passwordAndSaslMessagesRoundTrip() {
        assertEquals("secret", decodeBody(new PasswordMessage("secret"), PasswordMessage::decode).password());
        SASLInitialResponse initial = decodeBody(
                new SASLInitialResponse("SCRAM-SHA-256", "n,,n=,r=abc".getBytes()), SASLInitialResponse::decode);
        assertEquals("SCRAM-SHA-256", initial.mechanism());
        assertEquals("n,,n=,r=abc", new String(initial.data()));
        assertNull(decodeBody(new SASLInitialResponse("SCRAM-SHA-256", null), SASLInitialResponse::decode).data());
        assertEquals("c=biws", new String(decodeBody(new SASLResponse("c=biws".getBytes()), SASLResponse::decode)
                .data()));
    }

    @Test
    void passwordWithTrailingBytesIsAViolation() {
        ByteBuf body = Bytes.of().cstring("secret").byte1(1).body();
        ProtocolViolationException e =
                assertThrows(ProtocolViolationException.class, () -> PasswordMessage.decode(body));
        assertEquals("invalid password packet size", e.getMessage());
        body.release();
    }

    @Test
    void aClientsDecoderEncodesWhatThePoolerWritesAndPassesRelayedBytesThrough() {
        assertEncodesAndPassesThrough(new EmbeddedChannel(new FrontendMessageDecoder()));
    }

    @Test
    void aServersDecoderEncodesWhatThePoolerWritesAndPassesRelayedBytesThrough() {
        assertEncodesAndPassesThrough(new EmbeddedChannel(new BackendMessageDecoder()));
    }

    private static void assertEncodesAndPassesThrough(EmbeddedChannel channel) {
        ByteBuf relayed = Bytes.of().cstring("SELECT 1").message('Q');
        String relayedHex = Bytes.hex(relayed);
        channel.writeOutbound(ReadyForQuery.IDLE, relayed);
        ByteBuf first = channel.readOutbound();
        ByteBuf second = channel.readOutbound();
        assertEquals("5a0000000549", Bytes.hex(first));
        assertEquals(relayedHex, Bytes.hex(second));
        first.release();
        second.release();
        assertFalse(channel.finish());
    }

    @Test
    void toStringNeverShowsPasswordsOrKeys() {
        assertFalse(new PasswordMessage("hunter2").toString().contains("hunter2"));
        assertFalse(new CancelRequest(1, new byte[] {0x41, 0x42, 0x43, 0x44}).toString().contains("ABCD"));
        FrontendMessage password = new FrontendMessage(FrontendMessage.PASSWORD,
                Bytes.of().cstring("hunter2").message('p'));
        assertFalse(password.toString().contains("hunter2"));
        password.release();
    }
}
