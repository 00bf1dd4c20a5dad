package io.pgmux.proxy.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A connection its codec serves is in no pipeline: the codec hands it everything a handler behind it would get, and
 * nothing of it reaches the pipeline's end.
 */
class ServedConnectionTest {

    /** What the served connection is given, in order. */
    private static class Served extends MessageReader {
        final List<String> seen = new ArrayList<>();
        ChannelHandlerContext context;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            context = ctx;
            seen.add("active");
        }

        @Override
        public void messageRead(Object msg) {
            seen.add(msg instanceof FrontendMessage m ? "message " + (char) m.type() : msg.getClass().getSimpleName());
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void readEnded() {
            seen.add("end");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            seen.add("exception " + cause.getClass().getSimpleName());
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            seen.add("inactive");
        }
    }

    private static ByteBuf startup() {
        return Bytes.of().int32(StartupMessage.PROTOCOL_3_0).cstring("user").cstring("app").byte1(0).startupPacket();
    }

    private static EmbeddedChannel served(FrontendMessageDecoder codec, Served connection) {
        codec.serve(connection);
        return new EmbeddedChannel(codec);
    }

    @Test
    void theServedConnectionGetsItsChannelsActivationMessagesReadEndsAndEnd() {
        FrontendMessageDecoder codec = new FrontendMessageDecoder();
        Served connection = new Served();
        EmbeddedChannel channel = served(codec, connection);
        assertSame(channel.pipeline().context(codec), connection.context, "its events come with the codec's context");
        channel.writeInbound(startup());
        codec.loginComplete();
        channel.writeInbound(Bytes.of().cstring("SELECT 1").message('Q'));
        channel.close();
        assertEquals(List.of("active", "StartupMessage", "end", "message Q", "end", "inactive"), connection.seen);
        assertNull(channel.readInbound(), "nothing went on through the pipeline");
    }

    @Test
    void aMessageFramedAcrossReadsReachesTheServedConnection() {
        FrontendMessageDecoder codec = new FrontendMessageDecoder();
        Served connection = new Served();
        EmbeddedChannel channel = served(codec, connection);
        ByteBuf packet = startup();
        channel.writeInbound(packet.readRetainedSlice(5));
        channel.writeInbound(packet);
        assertEquals(List.of("active", "end", "StartupMessage", "end"), connection.seen);
        assertNull(channel.readInbound());
        channel.finishAndReleaseAll();
    }

    @Test
    void aProtocolViolationGoesToTheServedConnectionAndNotToThePipelinesEnd() {
        FrontendMessageDecoder codec = new FrontendMessageDecoder();
        Served connection = new Served();
        EmbeddedChannel channel = served(codec, connection);
        channel.writeInbound(Bytes.of().cstring("SELECT 1").message('Q'));
        assertEquals(List.of("active", "exception ProtocolViolationException", "end"), connection.seen);
        // an exception that reached the pipeline's end would be thrown here
        channel.checkException();
        channel.finishAndReleaseAll();
    }

    @Test
    void theServedConnectionsEndComesEvenWhenWhatTheClosedInputHeldCannotBeFramed() {
        FrontendMessageDecoder codec = new FrontendMessageDecoder();
        Served connection = new Served() {
            @Override
            public void messageRead(Object msg) {
                ReferenceCountUtil.release(msg);
                throw new IllegalStateException("refused");
            }
        };
        EmbeddedChannel channel = served(codec, connection);
        channel.writeInbound(startup());
        codec.loginComplete();
        // the Query's handling fails, which leaves the bad header behind it unread until the input closes
        ByteBuf query = Bytes.of().cstring("SELECT 1").message('Q');
        channel.writeInbound(Unpooled.wrappedBuffer(query, Unpooled.wrappedBuffer(new byte[] {(byte) 0xFF, 0, 0, 0, 4})));
        channel.close();
        assertTrue(connection.seen.contains("inactive"), connection.seen.toString());
    }

    @Test
    void whatHandlingOneMessageThrowsGoesToExceptionCaughtAndTheReadGoesOn() {
        FrontendMessageDecoder codec = new FrontendMessageDecoder();
        Served connection = new Served() {
            private int queries;

            @Override
            public void messageRead(Object msg) {
                super.messageRead(msg);
                if (msg instanceof FrontendMessage && queries++ == 0) {
                    throw new IllegalStateException("refused");
                }
            }
        };
        EmbeddedChannel channel = served(codec, connection);
        channel.writeInbound(startup());
        codec.loginComplete();
        connection.seen.clear();
        channel.writeInbound(Unpooled.wrappedBuffer(Bytes.of().cstring("SELECT 1").message('Q'),
                Bytes.of().cstring("SELECT 2").message('Q')));
        assertEquals(List.of("message Q", "exception IllegalStateException", "message Q", "end"), connection.seen);
        channel.finishAndReleaseAll();
    }

    @Test
    void servingNoneSendsWhatFollowsThroughThePipelineToAHandlerAddedBehind() {
        FrontendMessageDecoder codec = new FrontendMessageDecoder();
        Served connection = new Served();
        EmbeddedChannel channel = served(codec, connection);
        channel.writeInbound(startup());
        codec.loginComplete();
        List<String> behind = new ArrayList<>();
        codec.serve(null);
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                behind.add("message " + (char) ((FrontendMessage) msg).type());
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                behind.add("inactive");
            }
        });
        channel.writeInbound(Bytes.of().cstring("SELECT 1").message('Q'));
        channel.close();
        assertEquals(List.of("active", "StartupMessage", "end"), connection.seen);
        assertEquals(List.of("message Q", "inactive"), behind);
    }
}
