package io.pgmux.proxy.admin;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.pgmux.core.pool.Failures;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.server.PeerCancelKey;
import io.pgmux.proxy.protocol.NoticeResponse;
import io.pgmux.proxy.protocol.EmptyQueryResponse;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.ParameterStatus;
import io.pgmux.proxy.protocol.ProtocolViolationException;
import io.pgmux.proxy.protocol.Query;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.SqlState;
import io.pgmux.proxy.transport.ReadPauses;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One logged-in console client: answers each Query with the command's result and a ReadyForQuery, one command
 * at a time (a command that waits, PAUSE, holds the next ones back). The extended protocol is refused with an
 * ERROR, after which messages up to the next Sync are skipped, as PostgreSQL does after an error.
 */
final class AdminSession extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(AdminSession.class);

    private final AdminConsole console;
    private final Channel channel;
    private final String user;
    private final boolean admin;
    private final String applicationName;
    private final long connectedAtMillis = System.currentTimeMillis();
    /** The id of the client that logged in, from the proxy's one counter of clients and servers. */
    private final long id;
    /** When the client last sent a message, for SHOW CLIENTS' request_time, which may show it a moment old. */
    private long requestedAtMillis = connectedAtMillis;
    private final ArrayDeque<FrontendMessage> held = new ArrayDeque<>();
    /** A command is running; messages wait in {@link #held}. */
    private boolean busy;
    /** An extended-protocol message was refused: skip to the next Sync. */
    private boolean skippingToSync;
    /** A message came after the login: counted once in SHOW STATS, as PgBouncer counts its admin clients. */
    private boolean started;

    AdminSession(AdminConsole console, Channel channel, long id, String user, boolean admin,
            Map<String, String> startup) {
        this.console = console;
        this.channel = channel;
        this.id = id;
        this.user = user;
        this.admin = admin;
        this.applicationName = startup.getOrDefault("application_name", "");
    }

    Channel channel() {
        return channel;
    }

    String user() {
        return user;
    }

    boolean isAdmin() {
        return admin;
    }

    String applicationName() {
        return applicationName;
    }

    long connectedAtMillis() {
        return connectedAtMillis;
    }

    long requestedAtMillis() {
        return requestedAtMillis;
    }

    long id() {
        return id;
    }

    /**
     * The parameters a client library expects after login, then ReadyForQuery: PgBouncer 1.25's (tools tell its
     * console by server_version's "/bouncer"), plus integer_datetimes and the client's application_name, which
     * pgjdbc reads.
     */
    void welcome() {
        Map<String, String> parameters = Map.of(
                "server_version", AdminConsole.SERVER_VERSION,
                "server_encoding", "UTF8",
                "client_encoding", "UTF8",
                "DateStyle", "ISO",
                "TimeZone", "GMT",
                "standard_conforming_strings", "on",
                "is_superuser", "on",
                "integer_datetimes", "on",
                "application_name", applicationName);
        parameters.forEach((name, value) -> channel.write(new ParameterStatus(name, value), channel.voidPromise()));
        byte[] secret = new byte[BackendKeyData.KEY_LENGTH_3_0];
        ThreadLocalRandom.current().nextBytes(secret);
        // under peering, a console's key carries this process's peer_id too, so that no peer forwards its cancel
        channel.write(PeerCancelKey.stamped(new BackendKeyData(ThreadLocalRandom.current().nextInt()
                & Integer.MAX_VALUE, secret), console.peerPools().ownId()), channel.voidPromise());
        NoticeResponse notice = console.loginNotice();
        if (notice != null) {
            channel.write(notice, channel.voidPromise());
        }
        channel.writeAndFlush(ReadyForQuery.IDLE, channel.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        requestedAtMillis = System.currentTimeMillis();
        if (!(msg instanceof FrontendMessage message)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (busy) {
            held.add(message.keep());
            return;
        }
        try {
            onMessage(message);
        } finally {
            message.release();
        }
    }

    private void onMessage(FrontendMessage message) {
        if (!started && message.type() != FrontendMessage.TERMINATE) {
            started = true;
            console.sessionStarted();
        }
        switch (message.type()) {
            case FrontendMessage.QUERY -> {
                if (skippingToSync) {
                    return;
                }
                run(queryText(message));
            }
            case FrontendMessage.TERMINATE -> channel.close();
            case FrontendMessage.SYNC -> {
                skippingToSync = false;
                channel.writeAndFlush(ReadyForQuery.IDLE, channel.voidPromise());
            }
            case FrontendMessage.FUNCTION_CALL -> {
                channel.write(extendedProtocolRefused(), channel.voidPromise());
                channel.writeAndFlush(ReadyForQuery.IDLE, channel.voidPromise());
            }
            case FrontendMessage.PARSE, FrontendMessage.BIND, FrontendMessage.DESCRIBE, FrontendMessage.EXECUTE,
                    FrontendMessage.CLOSE, FrontendMessage.FLUSH -> {
                if (!skippingToSync) {
                    skippingToSync = true;
                    channel.writeAndFlush(extendedProtocolRefused(), channel.voidPromise());
                }
            }
            default -> {
                // COPY data and anything else has no meaning here
            }
        }
    }

    /** The text of a console Query; one without its terminator is refused in PgBouncer's words. */
    private static String queryText(FrontendMessage message) {
        try {
            return Query.decode(message.body()).sql();
        } catch (ProtocolViolationException e) {
            throw new ProtocolViolationException("incomplete query", e.getMessage());
        }
    }

        private static ErrorResponse extendedProtocolRefused() {
        return ErrorResponse.error(SqlState.PROTOCOL_VIOLATION,
                "extended query protocol not supported by admin console")
                .withHint("use a client's simple query mode, e.g. pgjdbc's preferQueryMode=simple");
    }

    private void run(String sql) {
        AdminCommand command = AdminCommand.parse(sql);
        if (command == null) {
            reply(List.of(EmptyQueryResponse.INSTANCE));
            return;
        }
        log.debug("admin console {}: {}", user, command.text());
        CompletableFuture<List<EncodableMessage>> result;
        try {
            result = console.execute(this, command).toCompletableFuture();
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        if (result.isDone()) {
            reply(outcome(result));
            return;
        }
        busy = true;
        ReadPauses.pause(channel, ReadPauses.CONSOLE_COMMAND);
        CompletableFuture<List<EncodableMessage>> pending = result;
        pending.whenComplete((v, e) -> channel.eventLoop().execute(() -> {
            busy = false;
            reply(outcome(pending));
            ReadPauses.resume(channel, ReadPauses.CONSOLE_COMMAND);
            FrontendMessage next;
            while (!busy && (next = held.poll()) != null) {
                try {
                    onMessage(next);
                } finally {
                    next.release();
                }
            }
        }));
    }

    private static List<EncodableMessage> outcome(CompletableFuture<List<EncodableMessage>> done) {
        try {
            return done.join();
        } catch (CompletionException e) {
            Throwable cause = Failures.cause(e);
            log.warn("admin console command failed", cause);
            return List.of(ErrorResponse.error("XX000", String.valueOf(cause.getMessage())));
        } catch (RuntimeException e) {
            return List.of(ErrorResponse.error("XX000", String.valueOf(e.getMessage())));
        }
    }

    private void reply(List<EncodableMessage> messages) {
        if (!channel.isActive()) {
            return;
        }
        for (EncodableMessage m : messages) {
            channel.write(m, channel.voidPromise());
        }
        channel.writeAndFlush(ReadyForQuery.IDLE, channel.voidPromise());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ProtocolViolationException violation) {
            channel.writeAndFlush(violation.toErrorResponse()).addListener(ChannelFutureListener.CLOSE);
        } else {
            log.debug("admin console client {} failed", channel.remoteAddress(), cause);
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        console.sessionClosed(this);
        FrontendMessage message;
        while ((message = held.poll()) != null) {
            message.release();
        }
    }
}
