package io.pgmux.proxy.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BackendMessageDecoderTest {
    private final TrackingAllocator allocator = new TrackingAllocator();
    private final BackendMessageDecoder decoder = new BackendMessageDecoder(1 << 16);
    private final EmbeddedChannel channel = new EmbeddedChannel();

    BackendMessageDecoderTest() {
        channel.config().setAllocator(allocator);
        channel.pipeline().addLast(decoder);
    }

    @BeforeAll
    static void paranoidLeakDetection() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    @AfterEach
    void everythingReleased() {
        channel.finishAndReleaseAll();
        assertEquals(0, allocator.unreleased());
    }

    private List<BackendMessage> readAll() {
        List<BackendMessage> messages = new ArrayList<>();
        for (BackendMessage m = channel.readInbound(); m != null; m = channel.readInbound()) {
            messages.add(m);
        }
        return messages;
    }

    @Test
    void splitsALoginResponseFedOneByteAtATime() {
        ByteBuf wire = Unpooled.wrappedBuffer(
                Bytes.of().int32(0).message('R'),
                Bytes.of().cstring("TimeZone").cstring("UTC").message('S'),
                Bytes.of().int32(7).int32(99).message('K'),
                Bytes.of().byte1('I').message('Z'));
        while (wire.isReadable()) {
            channel.writeInbound(wire.readRetainedSlice(1));
        }
        wire.release();
        List<BackendMessage> messages = readAll();
        try {
            assertEquals(4, messages.size());
            assertSame(Authentication.Ok.INSTANCE, Authentication.decode(messages.get(0).body()));
            assertEquals(new ParameterStatus("TimeZone", "UTC"), ParameterStatus.decode(messages.get(1).body()));
            assertEquals(7, BackendKeyData.decode(messages.get(2).body()).processId());
            assertSame(ReadyForQuery.IDLE, ReadyForQuery.decode(messages.get(3).body()));
        } finally {
            messages.forEach(BackendMessage::release);
        }
    }

    @Test
    void relaysTheWholeMessageBytesUnchanged() {
        ByteBuf row = Bytes.of().int16(1).int32(3).raw("abc".getBytes()).message('D');
        String hex = Bytes.hex(row);
        channel.writeInbound(row);
        BackendMessage message = channel.readInbound();
        assertEquals(BackendMessage.DATA_ROW, message.type());
        assertEquals(hex, Bytes.hex(message.content()));
        message.release();
        assertEquals(0, message.refCnt());
    }

    @Test
    void rejectsOversizedMessageFromItsHeader() {
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.buffer().writeByte('D').writeInt((1 << 16) + 1)));
        assertTrue(e.getMessage().contains("limit 65536"), e.getMessage());
        assertTrue(allocator.largestRequest() < 1 << 16);
    }

    @Test
    void rejectsNegativeLength() {
        assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.buffer().writeByte('D').writeInt(-1)));
    }

    @Test
    void decodesSslAcceptance() {
        decoder.expectSslResponse();
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {'S'}));
        assertSame(SslResponse.ACCEPTED, channel.readInbound());
    }

    @Test
    void decodesSslRefusalThenFramedMessages() {
        decoder.expectSslResponse();
        channel.writeInbound(Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(new byte[] {'N'}),
                Bytes.of().int32(0).message('R')));
        assertSame(SslResponse.REJECTED, channel.readInbound());
        BackendMessage ok = channel.readInbound();
        assertEquals(BackendMessage.AUTHENTICATION, ok.type());
        ok.release();
    }

    @Test
    void aServerThatDoesNotKnowSslRequestAnswersWithAnError() {
        decoder.expectSslResponse();
        channel.writeInbound(Bytes.of().byte1('S').raw(PoolerError.fatal("x").toString().getBytes()).byte1(0)
                .byte1(0).message('E'));
        BackendMessage error = channel.readInbound();
        assertEquals(BackendMessage.ERROR_RESPONSE, error.type());
        error.release();
    }

    @Test
    void refusesBytesPipelinedBehindSslAcceptance() {
        decoder.expectSslResponse();
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {'S', 0x16, 3, 1})));
        assertEquals("received unencrypted data after SSL response", e.getMessage());
        assertNull(channel.readInbound());
    }

    @Test
    void rejectsAnInvalidSslResponseByte() {
        decoder.expectSslResponse();
        assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {'X'})));
    }

    private static ByteBuf selectResult() {
        return Unpooled.wrappedBuffer(
                Bytes.of().int16(1).cstring("a").int32(0).int16(0).int32(23).int16(4).int32(-1).int16(0).message('T'),
                Bytes.of().int16(1).int32(1).raw("1".getBytes()).message('D'),
                Bytes.of().int16(1).int32(1).raw("2".getBytes()).message('D'),
                Bytes.of().cstring("SELECT 2").message('C'),
                Bytes.of().byte1('T').message('Z'));
    }

    @Test
    void decodesOneMessageAtATimeUnlessRunsAreAsked() {
        channel.writeInbound(selectResult());
        List<BackendMessage> messages = readAll();
        try {
            assertEquals(5, messages.size());
            assertTrue(messages.stream().noneMatch(BackendMessage::isRun));
        } finally {
            messages.forEach(BackendMessage::release);
        }
    }

    @Test
    void aRunHoldsEverythingUpToReadyForQueryAndReadsAsItsLastMessage() {
        decoder.relayRuns(() -> true);
        ByteBuf wire = selectResult();
        String hex = Bytes.hex(wire);
        channel.writeInbound(wire);
        List<BackendMessage> messages = readAll();
        try {
            assertEquals(1, messages.size());
            BackendMessage run = messages.get(0);
            assertTrue(run.isRun());
            assertEquals(BackendMessage.READY_FOR_QUERY, run.type());
            assertSame(ReadyForQuery.IN_TRANSACTION, ReadyForQuery.decode(run.body()));
            assertEquals(hex, Bytes.hex(run.content()));
            assertEquals(run.content().readableBytes() - 6, run.lastOffset());
        } finally {
            messages.forEach(BackendMessage::release);
        }
    }

    @Test
    void aReadHoldingExactlyOneRunIsPassedOnItselfWithoutASlice() {
        decoder.relayRuns(() -> true);
        ByteBuf wire = selectResult();
        channel.writeInbound(wire);
        List<BackendMessage> messages = readAll();
        try {
            assertEquals(1, messages.size());
            assertSame(wire, messages.get(0).content(), "the receive buffer itself, no slice of it");
            assertSame(ReadyForQuery.IN_TRANSACTION, ReadyForQuery.decode(messages.get(0).body()));
        } finally {
            messages.forEach(BackendMessage::release);
        }
    }

    @Test
    void aReusedHolderPassesEachWholeReadInTurnAndKeepGivesAHolderOfItsOwn() {
        decoder.reuseHolder();
        List<BackendMessage> passed = new ArrayList<>();
        List<BackendMessage> kept = new ArrayList<>();
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                BackendMessage message = (BackendMessage) msg;
                passed.add(message);
                kept.add(message.keep());
            }
        });
        ByteBuf idle = Bytes.of().byte1('I').message('Z');
        ByteBuf inTransaction = Bytes.of().byte1('T').message('Z');
        channel.writeInbound(idle);
        channel.writeInbound(inTransaction);
        try {
            assertEquals(2, passed.size());
            assertSame(passed.get(0), passed.get(1), "one holder for every whole read");
            assertEquals(0, passed.get(1).content().readableBytes(), "holding nothing once passed on");
            assertSame(idle, kept.get(0).content());
            assertSame(ReadyForQuery.IDLE, ReadyForQuery.decode(kept.get(0).body()));
            assertSame(ReadyForQuery.IN_TRANSACTION, ReadyForQuery.decode(kept.get(1).body()));
        } finally {
            kept.forEach(BackendMessage::release);
        }
    }

    @Test
    void aRunEndsAtParameterStatusAndAtTheLastCompleteMessage() {
        decoder.relayRuns(() -> true);
        ByteBuf partial = Bytes.of().cstring("SELECT 1").message('C');
        channel.writeInbound(Unpooled.wrappedBuffer(Bytes.of().cstring("SET").message('C'),
                Bytes.of().cstring("TimeZone").cstring("UTC").message('S'),
                Bytes.of().int16(0).message('D'), Bytes.of().int16(0).message('D'),
                partial.readRetainedSlice(4)));
        List<BackendMessage> messages = readAll();
        try {
            assertEquals(2, messages.size());
            assertEquals(BackendMessage.PARAMETER_STATUS, messages.get(0).type());
            assertEquals(new ParameterStatus("TimeZone", "UTC"), ParameterStatus.decode(messages.get(0).body()));
            assertEquals(BackendMessage.DATA_ROW, messages.get(1).type());
            assertEquals(14, messages.get(1).content().readableBytes());
        } finally {
            messages.forEach(BackendMessage::release);
        }
        channel.writeInbound(partial);
        BackendMessage rest = channel.readInbound();
        assertEquals(BackendMessage.COMMAND_COMPLETE, rest.type());
        assertTrue(!rest.isRun());
        rest.release();
    }

    @Test
    void aBadLengthInsideARunComesOutAfterTheMessagesBeforeIt() {
        decoder.relayRuns(() -> true);
        List<Object> seen = new ArrayList<>();
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
                () -> channel.writeInbound(Unpooled.wrappedBuffer(Bytes.of().int16(0).message('D'),
                        Bytes.of().int16(0).message('D'), Unpooled.buffer().writeByte('D').writeInt(-1))));
        assertTrue(e.getMessage().contains("invalid message length -1"), e.getMessage());
        for (Object m = channel.readInbound(); m != null; m = channel.readInbound()) {
            seen.add(m);
        }
        assertEquals(1, seen.size());
        BackendMessage run = (BackendMessage) seen.get(0);
        assertEquals(14, run.content().readableBytes());
        run.release();
    }
}
