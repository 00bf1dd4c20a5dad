package io.pgmux.proxy.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCounted;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Seeded random input over the decoders in every phase: the only exception allowed out is
 * {@link ProtocolViolationException}, and every buffer (input, cumulation, emitted slice) ends released.
 * A failure names the seed and iteration, so it replays exactly.
 */
class DecoderFuzzTest {
    private static final long SEED = 0x5EED_0F_B0B0L;
    private static final int ITERATIONS = 4000;
    private static final long BUDGET_NANOS = 20_000_000_000L;
    private static final byte[] FRONTEND_TYPES = "BCdcfDEHFPpQSX".getBytes();
    private static final byte[] BACKEND_TYPES = "RK23CWdcGHDIEVvnNAtS1sZT".getBytes();
    private static final int[] STARTUP_CODES = {
        StartupMessage.PROTOCOL_3_0, StartupMessage.PROTOCOL_3_2, 2 << 16, 4 << 16,
        SslRequest.CODE, GssEncRequest.CODE, CancelRequest.CODE};

    private int violations;
    private int messages;

    @BeforeAll
    static void paranoidLeakDetection() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    @Test
    void randomInputToTheFrontendDecoderOnlyRaisesProtocolViolationsAndLeaksNothing() {
        Random random = new Random(SEED);
        long deadline = System.nanoTime() + BUDGET_NANOS;
        for (int i = 0; i < ITERATIONS && System.nanoTime() < deadline; i++) {
            int phase = i % 3;
            FrontendMessageDecoder decoder = new FrontendMessageDecoder(1 + random.nextInt(70_000) + 4);
            run(i, decoder, channel -> {
                if (phase > 0) {
                    feed(channel, Bytes.of().int32(StartupMessage.PROTOCOL_3_0).cstring("user").cstring("u")
                            .byte1(0).startupPacket());
                }
                if (phase > 1) {
                    decoder.loginComplete();
                }
            }, random, phase == 0 ? this::startupPacket : r -> typedMessage(r, FRONTEND_TYPES));
        }
        assertTrue(violations > 100 && messages > 100, violations + " violations, " + messages + " messages");
    }

    @Test
    void randomInputToTheBackendDecoderOnlyRaisesProtocolViolationsAndLeaksNothing() {
        Random random = new Random(SEED + 1);
        long deadline = System.nanoTime() + BUDGET_NANOS;
        for (int i = 0; i < ITERATIONS && System.nanoTime() < deadline; i++) {
            BackendMessageDecoder decoder = new BackendMessageDecoder(4 + random.nextInt(70_000));
            if (random.nextBoolean()) {
                decoder.relayRuns(() -> true);
            }
            boolean ssl = i % 2 == 0;
            run(i, decoder, channel -> {
                if (ssl) {
                    decoder.expectSslResponse();
                }
            }, random, r -> typedMessage(r, BACKEND_TYPES));
        }
        assertTrue(violations > 100 && messages > 100, violations + " violations, " + messages + " messages");
    }

    @Test
    void randomBodiesOnlyRaiseProtocolViolations() {
        Random random = new Random(SEED + 2);
        List<Function<ByteBuf, ?>> parsers = List.of(Query::decode, Parse::decode, Bind::decode, Close::decode,
                Describe::decode, PasswordMessage::decode, SASLInitialResponse::decode, SASLResponse::decode,
                Authentication::decode, ErrorResponse::decode, NoticeResponse::decode, ParameterStatus::decode,
                BackendKeyData::decode, ReadyForQuery::decode, CommandComplete::decode,
                NegotiateProtocolVersion::decode);
        long deadline = System.nanoTime() + BUDGET_NANOS;
        for (int i = 0; i < ITERATIONS && System.nanoTime() < deadline; i++) {
            ByteBuf body = body(random);
            try {
                for (Function<ByteBuf, ?> parser : parsers) {
                    parseOrViolation(i, parser, body.duplicate());
                }
                ByteBuf frame = Unpooled.wrappedBuffer(new byte[body.readableBytes() + 5]).clear().writeByte('B')
                        .writeInt(body.readableBytes() + 4).writeBytes(body, 0, body.readableBytes());
                FrontendMessage bind = new FrontendMessage(FrontendMessage.BIND, frame);
                parseOrViolation(i, b -> Bind.renameStatement(ByteBufAllocator.DEFAULT, bind, "PGMUX_1").release(),
                        body);
                bind.release();
                assertEquals(0, frame.refCnt());
            } finally {
                body.release();
            }
        }
        assertTrue(violations > 100 && messages > 100, violations + " violations, " + messages + " parsed");
    }

    private void parseOrViolation(int iteration, Function<ByteBuf, ?> parser, ByteBuf body) {
        try {
            parser.apply(body);
            messages++;
        } catch (ProtocolViolationException e) {
            violations++;
        } catch (RuntimeException e) {
            fail("seed " + SEED + " iteration " + iteration + ": " + e, e);
        }
    }

    private void run(int iteration, ChannelHandler decoder, Consumer<EmbeddedChannel> setUp, Random random,
            Function<Random, ByteBuf> generator) {
        TrackingAllocator allocator = new TrackingAllocator();
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(allocator);
        channel.pipeline().addLast(decoder);
        List<ByteBuf> inputs = new ArrayList<>();
        List<ReferenceCounted> outputs = new ArrayList<>();
        try {
            setUp.accept(channel);
            drain(channel, outputs);
            ByteBuf stream = Unpooled.buffer();
            int pieces = 1 + random.nextInt(6);
            for (int p = 0; p < pieces; p++) {
                ByteBuf piece = generator.apply(random);
                stream.writeBytes(piece);
                piece.release();
            }
            while (stream.isReadable()) {
                ByteBuf chunk = Unpooled.copiedBuffer(stream.readSlice(
                        Math.min(stream.readableBytes(), 1 + random.nextInt(random.nextBoolean() ? 4 : 300))));
                inputs.add(chunk);
                if (!feed(channel, chunk)) {
                    break;
                }
                drain(channel, outputs);
            }
            stream.release();
            drain(channel, outputs);
            try {
                channel.finish();
            } catch (ProtocolViolationException e) {
                violations++;
            }
            drain(channel, outputs);
        } catch (RuntimeException | AssertionError e) {
            fail("seed " + SEED + " iteration " + iteration + ": " + e, e);
        }
        for (ReferenceCounted output : outputs) {
            assertEquals(0, output.refCnt(), "seed " + SEED + " iteration " + iteration + ": emitted buffer alive");
        }
        for (ByteBuf input : inputs) {
            if (input.refCnt() != 0) {
                fail("seed " + SEED + " iteration " + iteration + ": input buffer not released");
            }
        }
        assertEquals(0, allocator.unreleased(), "seed " + SEED + " iteration " + iteration + ": allocation leaked");
    }

    /** Writes; a protocol violation is counted and ends the stream; anything else escapes and fails the test. */
    private boolean feed(EmbeddedChannel channel, ByteBuf chunk) {
        try {
            channel.writeInbound(chunk);
            return true;
        } catch (ProtocolViolationException e) {
            violations++;
            return false;
        }
    }

    private void drain(EmbeddedChannel channel, List<ReferenceCounted> outputs) {
        for (Object message = channel.readInbound(); message != null; message = channel.readInbound()) {
            messages++;
            assertTrue(message instanceof FrontendMessage || message instanceof BackendMessage
                    || message instanceof StartupMessage || message instanceof SslRequest
                    || message instanceof GssEncRequest || message instanceof CancelRequest
                    || message instanceof SslResponse, "unexpected output " + message.getClass());
            if (message instanceof ReferenceCounted counted) {
                outputs.add(counted);
                counted.release();
            }
        }
    }

    private ByteBuf startupPacket(Random random) {
        if (random.nextInt(8) == 0) {
            return randomBytes(random, random.nextInt(40));
        }
        ByteBuf body = random.nextInt(3) == 0 ? body(random) : startupParameters(random);
        int length = body.readableBytes() + 8;
        ByteBuf packet = Unpooled.buffer()
                .writeInt(random.nextInt(6) == 0 ? random.nextInt(20_000) - 10 : length)
                .writeInt(STARTUP_CODES[random.nextInt(STARTUP_CODES.length)])
                .writeBytes(body);
        body.release();
        return packet;
    }

    private ByteBuf startupParameters(Random random) {
        Bytes bytes = Bytes.of();
        int count = random.nextInt(4);
        for (int i = 0; i < count; i++) {
            bytes.cstring("k" + random.nextInt(10)).cstring("v");
        }
        if (random.nextInt(4) != 0) {
            bytes.byte1(0);
        }
        return bytes.body();
    }

    private ByteBuf typedMessage(Random random, byte[] types) {
        if (random.nextInt(8) == 0) {
            return randomBytes(random, random.nextInt(40));
        }
        ByteBuf body = body(random);
        byte type = random.nextInt(10) == 0 ? (byte) random.nextInt(256) : types[random.nextInt(types.length)];
        int length = random.nextInt(8) == 0 ? random.nextInt() : body.readableBytes() + 4;
        ByteBuf message = Unpooled.buffer().writeByte(type).writeInt(length).writeBytes(body);
        body.release();
        return message;
    }

    /**
     * Message-shaped noise: C strings, int16/int32 counts and lengths, bytes, in random order. Backed by a plain
     * array so that PARANOID leak tracking is spent on the buffers the decoders create, not on test input.
     */
    private static ByteBuf body(Random random) {
        ByteBuf body = Unpooled.wrappedBuffer(new byte[128]).clear();
        int fields = random.nextInt(6);
        for (int i = 0; i < fields; i++) {
            switch (random.nextInt(5)) {
                case 0 -> body.writeBytes(("f" + random.nextInt(1000)).getBytes()).writeByte(0);
                case 1 -> body.writeShort(random.nextInt(6) - 1);
                case 2 -> body.writeInt(random.nextInt(3) == 0 ? random.nextInt() : random.nextInt(20) - 1);
                case 3 -> body.writeByte("SPITEZV".charAt(random.nextInt(7)));
                default -> {
                    byte[] noise = new byte[random.nextInt(12)];
                    random.nextBytes(noise);
                    body.writeBytes(noise);
                }
            }
        }
        return body;
    }

    private static ByteBuf randomBytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return Unpooled.wrappedBuffer(bytes);
    }
}
