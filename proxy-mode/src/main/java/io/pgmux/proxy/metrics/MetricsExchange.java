package io.pgmux.proxy.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.SocketChannel;
import io.prometheus.metrics.exporter.common.PrometheusHttpExchange;
import io.prometheus.metrics.exporter.common.PrometheusHttpRequest;
import io.prometheus.metrics.exporter.common.PrometheusHttpResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request and its response on a channel of the metrics endpoint: the response is buffered whole, then
 * written with its length in one write, and the connection closed after it: output first, the socket a moment
 * later, so that bytes the client still sends meanwhile are read and dropped rather than answered with a reset
 * that could discard the response before the client reads it.
 */
final class MetricsExchange implements PrometheusHttpExchange, PrometheusHttpResponse {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsExchange.class);
    private static final long LINGER_MILLIS = 1_000;

    private final Channel channel;
    private final HttpRequestHead request;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final ByteBuf body;
    private int status = 500;
    private boolean closed;

    MetricsExchange(Channel channel, HttpRequestHead request) {
        this.channel = channel;
        this.request = request;
        this.body = channel.alloc().buffer();
    }

    /** A response of plain text, such as an error. */
    static void respond(Channel channel, HttpRequestHead request, int status, String text) {
        MetricsExchange exchange = new MetricsExchange(channel, request);
        exchange.setHeader("Content-Type", "text/plain; charset=utf-8");
        exchange.status = status;
        exchange.body.writeCharSequence(text, StandardCharsets.UTF_8);
        exchange.close();
    }

    @Override
    public PrometheusHttpRequest getRequest() {
        return request;
    }

    @Override
    public PrometheusHttpResponse getResponse() {
        return this;
    }

    @Override
    public void setHeader(String name, String value) {
        headers.put(name, value);
    }

    @Override
    public OutputStream sendHeadersAndGetBody(int statusCode, int contentLength) {
        this.status = statusCode;
        return new ByteBufOutputStream(body);
    }

    @Override
    public void handleException(IOException e) {
        LOG.warn("metrics_listen: a scrape failed: {}", e.toString());
        status = 500;
        body.clear();
    }

    @Override
    public void handleException(RuntimeException e) {
        LOG.warn("metrics_listen: a scrape failed: {}", e.toString());
        status = 500;
        body.clear();
    }

    /** Writes the response and closes the connection once it is sent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        boolean head = request != null && "HEAD".equals(request.getMethod());
        if (!head || !headers.containsKey("Content-Length")) {
            headers.put("Content-Length", Integer.toString(body.readableBytes()));
        }
        headers.put("Connection", "close");
        StringBuilder text = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason(status))
                .append("\r\n");
        headers.forEach((name, value) -> text.append(name).append(": ").append(value).append("\r\n"));
        text.append("\r\n");
        ByteBuf response = channel.alloc().buffer(text.length() + (head ? 0 : body.readableBytes()));
        response.writeCharSequence(text, StandardCharsets.ISO_8859_1);
        if (!head) {
            response.writeBytes(body);
        }
        body.release();
        channel.writeAndFlush(response).addListener((ChannelFutureListener) written -> {
            if (written.isSuccess() && channel instanceof SocketChannel socket) {
                socket.shutdownOutput();
                channel.eventLoop().schedule(() -> channel.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
            } else {
                channel.close();
            }
        });
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 431 -> "Request Header Fields Too Large";
            default -> status >= 500 ? "Internal Server Error" : "Status";
        };
    }
}
