package io.pgmux.proxy.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.pgmux.proxy.protocol.MessageCodec;

/**
 * Why a socket does not read now, the one place its reads are paused and resumed: each part of the proxy that
 * pauses a socket's reads sets its own reason and clears only that one, and the socket reads when no reason is
 * left. So a part that resumes cannot undo another's pause (SUSPEND's, a slow peer's). The reasons are bits,
 * changed on the channel's event loop (a call from another thread hops there), kept by the socket's codec, which
 * asks for each read itself while none is set ({@link MessageCodec}); a socket without one (a listener) keeps them
 * in an attribute and reads by autoRead.
 */
public final class ReadPauses {
    /** A client sent more than it may while no server is linked to it. */
    public static final int WAITING_FOR_SERVER = 1;
    /** The socket's peer in the relay (the client of a server, the server of a client) cannot take more now. */
    public static final int PEER_NOT_WRITABLE = 1 << 1;
    /** SUSPEND: the read gate holds back what the socket reads, and the listeners accept nobody. */
    public static final int SUSPENDED = 1 << 2;
    /** A client's login waits for a lookup (auth_query, peer) or for the pool's first server. */
    public static final int LOGIN = 1 << 3;
    /** An admin console command runs: the session's next one waits. */
    public static final int CONSOLE_COMMAND = 1 << 4;
    /** A listener's: a RELOAD runs, and whoever connects meanwhile is accepted once it is over. */
    public static final int RELOADING = 1 << 5;
    /** A socket leaves its channel ({@link ChannelTakeOver#takeOver}): the channel reads no more. */
    public static final int LEAVING_CHANNEL = 1 << 6;

    /** Small values only: {@link Integer#valueOf} returns cached boxes for them, so no change allocates. */
    private static final AttributeKey<Integer> REASONS = AttributeKey.valueOf(ReadPauses.class, "reasons");

    private ReadPauses() {
    }

    /** {@code channel} stops reading for {@code reason}, until {@link #resume} clears it. */
    public static void pause(Channel channel, int reason) {
        change(channel, reason, true);
    }

    /** Clears {@code reason}: {@code channel} reads again if no other reason is left. */
    public static void resume(Channel channel, int reason) {
        change(channel, reason, false);
    }

    /**
     * Clears {@code reasons} of {@code channel}, whose codec the caller holds; on its event loop. Most often none of
     * them is set, which the codec tells at once: the look for it through the pipeline, which misses the cache when
     * many connections take turns, is made only when there is something to clear.
     */
    public static void resume(MessageCodec codec, Channel channel, int reasons) {
        if ((codec.readPauses() & reasons) != 0) {
            resume(channel, reasons);
        }
    }

    /** Sets {@code reason} when {@code paused}, else clears it. */
    public static void change(Channel channel, int reason, boolean paused) {
        if (channel.eventLoop().inEventLoop()) {
            apply(channel, reason, paused);
        } else {
            channel.eventLoop().execute(() -> apply(channel, reason, paused));
        }
    }

    /** Whether no reason to pause {@code channel}'s reads is set; on its event loop. */
    public static boolean isReading(Channel channel) {
        MessageCodec codec = MessageCodec.of(channel);
        return codec != null ? codec.readPauses() == 0 : channel.config().isAutoRead();
    }

    private static void apply(Channel channel, int reason, boolean paused) {
        MessageCodec codec = MessageCodec.of(channel);
        if (codec != null) {
            applyToCodec(channel, codec, reason, paused);
            return;
        }
        if (!paused && channel.config().isAutoRead()) {
            // no reason is set (autoRead is on exactly then, as only this class turns it): no attribute is searched
            return;
        }
        Attribute<Integer> attribute = channel.attr(REASONS);
        Integer current = attribute.get();
        int before = current == null ? 0 : current;
        int after = paused ? before | reason : before & ~reason;
        if (after == before) {
            return;
        }
        attribute.set(after);
        if ((before == 0) != (after == 0)) {
            channel.config().setAutoRead(after == 0);
        }
    }

    private static void applyToCodec(Channel channel, MessageCodec codec, int reason, boolean paused) {
        int before = codec.readPauses();
        int after = paused ? before | reason : before & ~reason;
        if (after == before) {
            return;
        }
        codec.readPauses(after);
        if (before == 0) {
            // the read the codec asked for may still be pending, and Netty cancels one only when autoRead turns off
            ChannelConfig config = channel.config();
            config.setAutoRead(true);
            config.setAutoRead(false);
        } else if (after == 0) {
            channel.read();
        }
    }
}
