package io.pgmux.proxy.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.prometheus.metrics.exporter.common.PrometheusScrapeHandler;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * One connection to the metrics endpoint: reads the request head without a thread of its own and answers it.
 * A head must arrive whole within {@link #HEADER_TIMEOUT} and {@link #MAX_HEAD} bytes, so that connections
 * that send it slowly or never hold nothing but their socket, and never delay a scrape. What follows the head
 * is read and dropped.
 */
final class MetricsHttpHandler extends ChannelInboundHandlerAdapter {
    private static final Duration HEADER_TIMEOUT = Duration.ofSeconds(5);
    private static final int MAX_HEAD = 8192;

    private final PrometheusScrapeHandler scrape;
    /** Grown as the head arrives: a connection that sends little holds little. */
    private byte[] head = new byte[256];
    private int length;
    private ScheduledFuture<?> deadline;
    private boolean answered;

    MetricsHttpHandler(PrometheusScrapeHandler scrape) {
        this.scrape = scrape;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        deadline = ctx.executor().schedule(() -> refuse(ctx, 408, "Request Timeout\n"),
                HEADER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        deadline.cancel(false);
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            while (!answered && in.isReadable()) {
                if (length == head.length) {
                    head = Arrays.copyOf(head, head.length * 2);
                }
                head[length++] = in.readByte();
                if (endsHead()) {
                    answer(ctx);
                } else if (length == MAX_HEAD) {
                    refuse(ctx, 431, "Request Header Fields Too Large\n");
                }
            }
        } finally {
            in.release();
        }
    }

    /** The head ends in an empty line: CRLF CRLF, or LF LF from a lenient client. */
    private boolean endsHead() {
        return length >= 2 && head[length - 1] == '\n'
                && (head[length - 2] == '\n' || length >= 4 && head[length - 2] == '\r' && head[length - 3] == '\n');
    }

    private void answer(ChannelHandlerContext ctx) {
        answered = true;
        deadline.cancel(false);
        HttpRequestHead request = HttpRequestHead.parse(Arrays.copyOf(head, length));
        if (request == null) {
            MetricsExchange.respond(ctx.channel(), null, 400, "Bad Request\n");
        } else if (!request.getMethod().equals("GET") && !request.getMethod().equals("HEAD")) {
            MetricsExchange.respond(ctx.channel(), request, 405, "Method Not Allowed\n");
        } else if (request.getRequestPath().equals("/metrics")) {
            MetricsExchange exchange = new MetricsExchange(ctx.channel(), request);
            try {
                scrape.handleRequest(exchange);
            } catch (IOException e) {
                exchange.handleException(e);
            } catch (RuntimeException e) {
                exchange.handleException(e);
            } finally {
                exchange.close();
            }
        } else if (request.getRequestPath().equals("/-/healthy")) {
            MetricsExchange.respond(ctx.channel(), request, 200, "Exporter is healthy.\n");
        } else {
            MetricsExchange.respond(ctx.channel(), request, 404, "Not Found: the metrics are on /metrics\n");
        }
    }

    private void refuse(ChannelHandlerContext ctx, int status, String text) {
        if (!answered) {
            answered = true;
            deadline.cancel(false);
                MetricsExchange.respond(ctx.channel(), null, status, text);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
