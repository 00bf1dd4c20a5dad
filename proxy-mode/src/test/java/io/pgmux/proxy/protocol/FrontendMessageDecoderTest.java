package io.pgmux.proxy.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ResourceLeakDetector;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FrontendMessageDecoderTest {
    private final TrackingAllocator allocator = new TrackingAllocator();
    private final FrontendMessageDecoder decoder = new FrontendMessageDecoder(1 << 20);
    private final EmbeddedChannel channel = channel(decoder);

    @BeforeAll
    static void paranoidLeakDetection() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    @AfterEach
    void everythingReleased() {
        channel.finishAndReleaseAll();
        assertEquals(0, allocator.unreleased(), "buffers allocated by the decoder and never released");
    }

    private EmbeddedChannel channel(FrontendMessageDecoder handler) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(allocator);
        ch.pipeline().addLast(handler);
        return ch;
    }

    private static ByteBuf startup(String... keysAndValues) {
        Bytes packet = Bytes.of().int32(StartupMessage.PROTOCOL_3_0);
        for (String s : keysAndValues) {
            packet.cstring(s);
        }
        return packet.byte1(0).startupPacket();
    }

    private void loggedIn() {
        channel.writeInbound(startup("user", "app"));
        assertInstanceOf(StartupMessage.class, channel.readInbound());
        decoder.loginComplete();
    }

    @Test
    void decodesStartupMessageWithParametersInOrder() {
        channel.writeInbound(startup("user", "alice", "database", "shop", "application_name", "psql"));
        StartupMessage message = channel.readInbound();
        assertEquals(3, message.majorVersion());
        assertEquals(0, message.minorVersion());
        assertEquals(Map.of("user", "alice", "database", "shop", "application_name", "psql"), message.parameters());
        assertEquals("[user, database, application_name]", message.parameters().keySet().toString());
        assertEquals("alice", message.user());
        assertEquals("shop", message.database());
    }

    @Test
    void databaseDefaultsToUserName() {
        channel.writeInbound(startup("user", "alice"));
        StartupMessage message = channel.readInbound();
        assertEquals("alice", message.database());
    }

    @Test
    void startupMessageWithoutUserHasNullUser() {
        channel.writeInbound(startup("database", "shop"));
        assertNull(((StartupMessage) channel.readInbound()).user());
    }

    @Test
    void acceptsProtocol32StartupAndReportsTheMinorVersion() {
        channel.writeInbound(Bytes.of().int32(StartupMessage.PROTOCOL_3_2).cstring("user").cstring("a").byte1(0)
                .startupPacket());
        StartupMessage message = channel.readInbound();
        assertEquals(2, message.minorVersion());
    }

    @Test
    void rejectsProtocol2WithPgBouncersText() {
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Bytes.of().int32(2 << 16).raw(new byte[288]).startupPacket()));
        assertEquals("old V2 protocol not supported", e.getMessage());
        assertEquals(PoolerError.oldV2Protocol(), e.toErrorResponse());
    }

    @Test
    void rejectsProtocol4AsABadHeaderShowingItsBytes() {
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Bytes.of().int32(4 << 16).byte1(0).startupPacket()));
        assertEquals("bad packet header: '0000000900040000'", e.getMessage());
        assertTrue(e.detail().startsWith("unsupported frontend protocol 4.0"), e.detail());
    }

    @Test
    void rejectsAnUnknownStartupCodeBeforeItsBodyIsIn() {
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.buffer().writeInt(1000).writeInt(1234)));
        assertEquals("bad packet header: '000003e8000004d2'", e.getMessage());
    }

    @Test
    void refusesAPasswordMessageBeforeTheStartupPacketWithPgBouncersText() {
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Bytes.of().cstring("secret").message('p')));
        assertEquals("client password pkt before startup packet", e.getMessage());
    }

    @Test
    void refusesAnyOtherTypedMessageBeforeTheStartupPacketAtOnce() {
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n", StandardCharsets.US_ASCII)));
        assertEquals("bad packet header: '474554202f204854'", e.getMessage());
    }

    @Test
    void rejectsStartupMessageWithoutFinalTerminator() {
        ByteBuf packet = Bytes.of().int32(StartupMessage.PROTOCOL_3_0).cstring("user").cstring("a").startupPacket();
        ProtocolViolationException e =
                assertThrows(ProtocolViolationException.class, () -> channel.writeInbound(packet));
        assertTrue(e.getMessage().contains("startup packet layout"), e.getMessage());
    }

    @Test
    void rejectsParameterNameWithoutValue() {
        ByteBuf packet = Bytes.of().int32(StartupMessage.PROTOCOL_3_0).cstring("user").byte1(0).startupPacket();
        assertThrows(ProtocolViolationException.class, () -> channel.writeInbound(packet));
    }

    @Test
    void decodesSslRequestAndStaysInStartupPhase() {
        channel.writeInbound(Bytes.of().int32(SslRequest.CODE).startupPacket());
        assertSame(SslRequest.INSTANCE, channel.readInbound());
        channel.writeInbound(startup("user", "alice"));
        assertInstanceOf(StartupMessage.class, channel.readInbound());
    }

    @Test
    void decodesGssEncRequestAndStaysInStartupPhase() {
        channel.writeInbound(Bytes.of().int32(GssEncRequest.CODE).startupPacket());
        assertSame(GssEncRequest.INSTANCE, channel.readInbound());
        channel.writeInbound(Bytes.of().int32(SslRequest.CODE).startupPacket());
        assertSame(SslRequest.INSTANCE, channel.readInbound());
    }

    @Test
    void refusesDataPipelinedBehindSslRequest() {
        ByteBuf both = Unpooled.wrappedBuffer(Bytes.of().int32(SslRequest.CODE).startupPacket(), startup("user", "a"));
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> channel.writeInbound(both));
        assertEquals("received unencrypted data after SSL request", e.getMessage());
        assertNull(channel.readInbound());
    }

    @Test
    void refusesDataPipelinedBehindGssEncRequest() {
        ByteBuf both = Unpooled.wrappedBuffer(Bytes.of().int32(GssEncRequest.CODE).startupPacket(),
                startup("user", "a"));
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> channel.writeInbound(both));
        assertEquals("received unencrypted data after GSSAPI encryption request", e.getMessage());
        assertNull(channel.readInbound());
    }

    @Test
    void rejectsSslRequestWithExtraBytes() {
        assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Bytes.of().int32(SslRequest.CODE).int32(0).startupPacket()));
    }

    @Test
    void decodesProtocol30CancelRequest() {
        channel.writeInbound(Bytes.of().int32(CancelRequest.CODE).int32(4242).raw(new byte[] {1, 2, 3, 4})
                .startupPacket());
        CancelRequest request = channel.readInbound();
        assertEquals(4242, request.processId());
        assertArrayEquals(new byte[] {1, 2, 3, 4}, request.secretKey());
        assertTrue(request.matches(new BackendKeyData(4242, new byte[] {1, 2, 3, 4})));
        assertTrue(!request.matches(new BackendKeyData(4242, new byte[] {1, 2, 3, 5})));
    }

    @Test
    void decodesProtocol32CancelRequestWithLongKey() {
        byte[] key = new byte[32];
        key[31] = 7;
        channel.writeInbound(Bytes.of().int32(CancelRequest.CODE).int32(1).raw(key).startupPacket());
        CancelRequest request = channel.readInbound();
        assertArrayEquals(key, request.secretKey());
        assertEquals(new BackendKeyData(1, key), request.key());
    }

    @Test
    void rejectsCancelRequestWithShortKey() {
        assertThrows(ProtocolViolationException.class, () -> channel.writeInbound(
                Bytes.of().int32(CancelRequest.CODE).int32(1).raw(new byte[3]).startupPacket()));
    }

    @Test
    void discardsEverythingAfterCancelRequest() {
        channel.writeInbound(Bytes.of().int32(CancelRequest.CODE).int32(1).raw(new byte[4]).startupPacket());
        assertInstanceOf(CancelRequest.class, channel.readInbound());
        channel.writeInbound(startup("user", "alice"));
        assertNull(channel.readInbound());
    }

    @Test
    void rejectsStartupLengthBelowEight() {
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.buffer().writeInt(7).writeInt(StartupMessage.PROTOCOL_3_0)));
        assertEquals("bad packet header: '0000000700030000'", e.getMessage());
        assertEquals("invalid length of startup packet", e.detail());
    }

    @Test
    void rejectsOversizedStartupPacketFromItsHeaderAlone() {
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.buffer().writeInt(10_001)));
        assertEquals("bad packet header: '00002711'", e.getMessage());
        assertEquals("invalid length of startup packet", e.detail());
        assertTrue(allocator.largestRequest() < 10_001);
    }

    @Test
    void decodesStartupAndMessagesFedOneByteAtATime() {
        ByteBuf all = Unpooled.wrappedBuffer(
                startup("user", "alice"),
                Bytes.of().cstring("secret").message('p'));
        while (all.isReadable()) {
            channel.writeInbound(all.readRetainedSlice(1));
            if (channel.inboundMessages().size() == 1 && channel.inboundMessages().peek() instanceof StartupMessage) {
                assertEquals("alice", ((StartupMessage) channel.readInbound()).user());
            }
        }
        all.release();
        FrontendMessage password = channel.readInbound();
        try {
            assertEquals(FrontendMessage.PASSWORD, password.type());
            assertEquals("secret", PasswordMessage.decode(password.body()).password());
        } finally {
            password.release();
        }
        assertNull(channel.readInbound());
    }

    @Test
    void passesMessagesOnAsRetainedSlicesOfTheReceiveBuffer() {
        loggedIn();
        ByteBuf query = Bytes.of().cstring("SELECT 1").message('Q');
        ByteBuf sync = Bytes.of().message('S');
        String queryHex = Bytes.hex(query);
        channel.writeInbound(Unpooled.wrappedBuffer(query, sync));
        FrontendMessage first = channel.readInbound();
        FrontendMessage second = channel.readInbound();
        try {
            assertNotNull(first.content().unwrap(), "a slice, not a copy");
            assertEquals(queryHex, Bytes.hex(first.content()));
            assertEquals(FrontendMessage.QUERY, first.type());
            assertEquals("SELECT 1", Query.decode(first.body()).sql());
            assertEquals(FrontendMessage.SYNC, second.type());
            assertEquals(0, second.body().readableBytes());
        } finally {
            first.release();
            second.release();
        }
        assertEquals(0, first.refCnt());
        assertEquals(0, second.refCnt());
    }

    @Test
    void readGoesOnWhileBytesOfTheSameReadFollowTheMessageHandedOver() {
        loggedIn();
        List<Boolean> seen = new ArrayList<>();
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                seen.add(decoder.readGoesOn());
                ReferenceCountUtil.release(msg);
            }
        });
        channel.writeInbound(Unpooled.wrappedBuffer(Bytes.of().cstring("BEGIN").message('Q'),
                Bytes.of().cstring("SELECT 1").message('Q'), Bytes.of().message('S')));
        assertEquals(List.of(true, true, false), seen, "the read's last message has nothing after it");
        seen.clear();
        channel.writeInbound(Bytes.of().cstring("SELECT 1").message('Q'));
        assertEquals(List.of(false), seen, "a read handed over whole");
        seen.clear();
        ByteBuf next = Bytes.of().cstring("SELECT 2").message('Q');
        channel.writeInbound(Unpooled.wrappedBuffer(Bytes.of().cstring("SELECT 1").message('Q'), next.copy(0, 3)));
        assertEquals(List.of(true), seen);
        assertFalse(decoder.readGoesOn(), "outside a read, with the start of a message kept for the next");
        channel.writeInbound(next.skipBytes(3));
        assertEquals(List.of(true, false), seen);
    }

    @Test
    void aReadHoldingExactlyOneMessageIsPassedOnItselfWithoutASlice() {
        loggedIn();
        ByteBuf query = Bytes.of().cstring("SELECT 1").message('Q');
        channel.writeInbound(query);
        FrontendMessage message = channel.readInbound();
        try {
            assertSame(query, message.content(), "the receive buffer itself, no slice of it");
            assertEquals(FrontendMessage.QUERY, message.type());
            assertEquals("SELECT 1", Query.decode(message.body()).sql());
        } finally {
            message.release();
        }
        assertEquals(0, query.refCnt());
    }

    @Test
    void aReadHoldingExactlyOneRunIsPassedOnItselfWithoutASlice() {
        loggedIn();
        decoder.relayRuns(() -> true);
        ByteBuf batch = Unpooled.buffer().writeBytes(Bytes.of().cstring("").cstring("SELECT 1").int16(0).message('P'))
                .writeBytes(Bytes.of().cstring("").int32(0).message('E')).writeBytes(Bytes.of().message('S'));
        channel.writeInbound(batch);
        FrontendMessage run = channel.readInbound();
        try {
            assertSame(batch, run.content());
            assertTrue(run.isRun());
        } finally {
            run.release();
        }
    }

    @Test
    void aSyncWithABodyEndsARunAndIsRefusedOnItsOwn() {
        loggedIn();
        decoder.relayRuns(() -> true);
        ByteBuf parse = Bytes.of().cstring("").cstring("SELECT 1").int16(0).message('P');
        ByteBuf execute = Bytes.of().cstring("").int32(0).message('E');
        ByteBuf badSync = Unpooled.buffer().writeByte('S').writeInt(5).writeByte('r');
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.wrappedBuffer(parse, execute, badSync)));
        assertEquals("bad packet header: '530000000572'", e.getMessage());
        FrontendMessage run = channel.readInbound();
        assertEquals("PE", run.split().stream().map(m -> {
            m.release();
            return String.valueOf((char) m.type());
        }).reduce("", String::concat), "the run stops before the Sync");
    }

    @Test
    void extendedProtocolMessagesOfOneReadComeAsOneRunWhileTheReaderAsks() {
        loggedIn();
        decoder.relayRuns(() -> true);
        ByteBuf parse = Bytes.of().cstring("").cstring("SELECT 1").int16(0).message('P');
        ByteBuf bind = Bytes.of().cstring("").cstring("").int16(0).int16(0).int16(0).message('B');
        ByteBuf execute = Bytes.of().cstring("").int32(0).message('E');
        ByteBuf sync = Bytes.of().message('S');
        ByteBuf query = Bytes.of().cstring("SELECT 2").message('Q');
        String syncHex = Bytes.hex(sync);
        String runHex = Bytes.hex(parse) + Bytes.hex(bind) + Bytes.hex(execute) + syncHex;
        channel.writeInbound(Unpooled.wrappedBuffer(parse, bind, execute, sync, query));
        FrontendMessage run = channel.readInbound();
        assertTrue(run.isRun());
        assertEquals(FrontendMessage.PARSE, run.type());
        assertEquals(runHex, Bytes.hex(run.content()));
        FrontendMessage single = channel.readInbound();
        assertFalse(single.isRun(), "a Query is not read in place");
        assertEquals(FrontendMessage.QUERY, single.type());
        single.release();
        List<FrontendMessage> messages = run.split();
        assertEquals("PBES", messages.stream().map(m -> String.valueOf((char) m.type()))
                .reduce("", String::concat));
        assertEquals(syncHex, Bytes.hex(messages.get(3).content()));
        messages.forEach(FrontendMessage::release);
        assertEquals(0, run.refCnt(), "the run goes with its messages");
    }

    @Test
    void aReusedHolderPassesEachWholeReadInTurnAndKeepGivesAHolderOfItsOwn() {
        loggedIn();
        decoder.relayRuns(() -> true);
        decoder.reuseHolder();
        List<FrontendMessage> passed = new ArrayList<>();
        List<FrontendMessage> kept = new ArrayList<>();
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                FrontendMessage message = (FrontendMessage) msg;
                passed.add(message);
                kept.add(message.keep());
            }
        });
        ByteBuf query = Bytes.of().cstring("SELECT 1").message('Q');
        ByteBuf run = Unpooled.wrappedBuffer(Bytes.of().cstring("").int32(0).message('E'), Bytes.of().message('S'));
        channel.writeInbound(query);
        channel.writeInbound(run);
        try {
            assertEquals(2, passed.size());
            assertSame(passed.get(0), passed.get(1), "one holder for every whole read");
            assertThrows(IllegalReferenceCountException.class, () -> passed.get(1).content(),
                    "the holder refers to no buffer once passed on");
            assertSame(query, kept.get(0).content());
            assertEquals(FrontendMessage.QUERY, kept.get(0).type());
            assertSame(run, kept.get(1).content());
            assertTrue(kept.get(1).isRun());
            assertEquals(FrontendMessage.EXECUTE, kept.get(1).type());
            assertSame(kept.get(1), kept.get(1).keep(), "a holder of its own is kept as it is");
        } finally {
            kept.forEach(FrontendMessage::release);
        }
    }

    /** What the handler behind the codec is given, by which way: through the pipeline or from the codec itself. */
    private static final class Behind extends MessageReader {
        final List<String> seen = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            seen.add("pipeline " + (char) ((FrontendMessage) msg).type());
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            seen.add("pipeline end");
        }

        @Override
        public void messageRead(Object msg) {
            seen.add("direct " + (char) ((FrontendMessage) msg).type());
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void readEnded() {
            seen.add("direct end");
        }
    }

    /** Logged in, with a handler behind the decoder that reads directly. */
    private Behind behindTheCodec() {
        loggedIn();
        Behind behind = new Behind();
        channel.pipeline().addLast(behind);
        decoder.readBy(behind);
        return behind;
    }

    @Test
    void aWholeReadAndItsEndGoStraightToTheReaderBehindTheCodec() {
        Behind behind = behindTheCodec();
        channel.writeInbound(Bytes.of().cstring("SELECT 1").message('Q'));
        assertEquals(List.of("direct Q", "direct end"), behind.seen);
    }

    @Test
    void aMessageCutBetweenReadsIsFramedAndEndsThroughThePipelineAsBefore() {
        Behind behind = behindTheCodec();
        ByteBuf query = Bytes.of().cstring("SELECT 1").message('Q');
        channel.writeInbound(query.readRetainedSlice(3));
        channel.writeInbound(query);
        channel.writeInbound(Bytes.of().message('S'));
        assertEquals(List.of("pipeline end", "pipeline Q", "direct end", "direct S", "direct end"), behind.seen,
                "a read's end goes directly only when nothing half framed waits");
    }

    @Test
    void noReaderAgainMeansThePipelineAgain() {
        Behind behind = behindTheCodec();
        decoder.readBy(null);
        channel.writeInbound(Bytes.of().cstring("SELECT 1").message('Q'));
        assertEquals(List.of("pipeline Q", "pipeline end"), behind.seen);
    }

    @Test
    void aRunCutAroundTheMessagesPickedKeepsTheOthersTogether() {
        loggedIn();
        decoder.relayRuns(() -> true);
        channel.writeInbound(Unpooled.wrappedBuffer(Bytes.of().cstring("").cstring("s1").int16(0).int16(0).int16(0)
                .message('B'), Bytes.of().cstring("").int32(0).message('E'), Bytes.of().message('S')));
        FrontendMessage run = channel.readInbound();
        List<FrontendMessage> pieces = run.split((frames, start, end) -> frames.getByte(start) == 'B');
        assertEquals(2, pieces.size());
        assertFalse(pieces.get(0).isRun());
        assertEquals(FrontendMessage.BIND, pieces.get(0).type());
        assertTrue(pieces.get(1).isRun(), "the Execute and the Sync stay one run");
        assertEquals(FrontendMessage.EXECUTE, pieces.get(1).type());
        pieces.forEach(FrontendMessage::release);
        assertEquals(0, run.refCnt());
    }

    @Test
    void extendedProtocolMessagesComeOneByOneUnlessTheReaderAsksForRuns() {
        loggedIn();
        channel.writeInbound(Unpooled.wrappedBuffer(Bytes.of().cstring("").int32(0).message('E'),
                Bytes.of().message('S')));
        FrontendMessage execute = channel.readInbound();
        FrontendMessage sync = channel.readInbound();
        assertFalse(execute.isRun());
        assertEquals(FrontendMessage.EXECUTE, execute.type());
        assertEquals(FrontendMessage.SYNC, sync.type());
        execute.release();
        sync.release();
    }

    @Test
    void loginPhaseAcceptsOnlyPasswordMessagesAndTerminate() {
        channel.writeInbound(startup("user", "alice"));
        channel.readInbound();
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Bytes.of().cstring("SELECT 1").message('Q')));
        assertEquals("expected password response, got message type 81", e.getMessage());
    }

    @Test
    void aStartupPacketSentAgainDuringLoginIsRefusedWithPgBouncersText() {
        channel.writeInbound(startup("user", "alice"));
        channel.readInbound();
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(startup("user", "alice")));
        assertEquals("client re-sent startup pkt", e.getMessage());
    }

    @Test
    void loginPhaseLimitsMessagesToTwicePostgresqlsAuthTokenLength() {
        channel.writeInbound(startup("user", "alice"));
        channel.readInbound();
        assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.buffer().writeByte('p').writeInt(2 * 65_535 + 1)));
    }

    @Test
    void rejectsUnknownMessageType() {
        loggedIn();
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Bytes.of().message('z')));
        assertEquals("unknown pkt", e.getMessage());
        assertEquals("invalid frontend message type 122", e.detail());
    }

    @Test
    void rejectsLengthBelowFour() {
        loggedIn();
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.buffer().writeByte('Q').writeInt(3)));
        assertEquals("bad packet header: '5100000003'", e.getMessage());
        assertTrue(e.detail().startsWith("invalid message length 3"), e.detail());
    }

    @Test
    void rejectsAFlushWithABodyFromItsHeader() {
        loggedIn();
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.buffer().writeByte('H').writeInt(5)));
        assertEquals("bad packet header: '4800000005'", e.getMessage());
        assertEquals("invalid message length 5 for message type 72, which has no body", e.detail());
    }

    @Test
    void rejectsOversizedMessageFromItsHeaderWithoutBufferingTheBody() {
        loggedIn();
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.buffer().writeByte('Q').writeInt((1 << 20) + 1)));
        assertTrue(e.getMessage().startsWith("bad packet header: '51"), e.getMessage());
        assertTrue(e.detail().contains("limit 1048576"), e.detail());
        assertTrue(allocator.largestRequest() < 1 << 20);
    }

    @Test
    void waitsForALargeMessageWithoutAllocatingItsClaimedSize() {
        loggedIn();
        channel.writeInbound(Unpooled.buffer().writeByte('Q').writeInt(1 << 20));
        for (int i = 0; i < 8; i++) {
            channel.writeInbound(Unpooled.wrappedBuffer(new byte[512]));
        }
        assertNull(channel.readInbound());
        assertTrue(allocator.largestRequest() < 64 * 1024, "largest allocation " + allocator.largestRequest());
    }

    @Test
    void discardsInputAfterAViolation() {
        loggedIn();
        assertThrows(ProtocolViolationException.class, () -> channel.writeInbound(Bytes.of().message('z')));
        channel.writeInbound(Bytes.of().cstring("SELECT 1").message('Q'));
        assertNull(channel.readInbound());
    }

    @Test
    void maximumBelowFourIsAConfigurationError() {
        assertThrows(IllegalArgumentException.class, () -> new FrontendMessageDecoder(3));
    }

    @Test
    void encodedStartupMessageDecodesToTheSameParameters() {
        StartupMessage sent = new StartupMessage(StartupMessage.PROTOCOL_3_0,
                Map.of("user", "bob", "options", "-c search_path=x"));
        ByteBuf wire = Unpooled.buffer();
        sent.encode(wire);
        channel.writeInbound(wire);
        StartupMessage received = channel.readInbound();
        assertEquals(sent.parameters(), received.parameters());
    }
}
