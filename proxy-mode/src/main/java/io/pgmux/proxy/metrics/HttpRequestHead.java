package io.pgmux.proxy.metrics;

import io.prometheus.metrics.exporter.common.PrometheusHttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The request line and header fields of one HTTP/1.x request, all a scrape needs (a GET carries no body), read
 * as Prometheus's scrape handler asks for them.
 */
final class HttpRequestHead implements PrometheusHttpRequest {
    private final String method;
    private final String path;
    private final String query;
    private final Map<String, List<String>> fields;

    private HttpRequestHead(String method, String path, String query, Map<String, List<String>> fields) {
        this.method = method;
        this.path = path;
        this.query = query;
        this.fields = fields;
    }

    /**
     * Reads a head ending in an empty line (ISO-8859-1, as HTTP/1.1 defines header octets).
     *
     * @return the head, or null when its request line or a field is not HTTP's
     */
    static HttpRequestHead parse(byte[] head) {
        String[] lines = new String(head, StandardCharsets.ISO_8859_1).split("\r?\n");
        String[] requestLine = lines[0].split(" ", -1);
        if (requestLine.length != 3 || requestLine[0].isEmpty() || !requestLine[1].startsWith("/")
                || !requestLine[2].startsWith("HTTP/1.")) {
            return null;
        }
        Map<String, List<String>> fields = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                return null;
            }
            fields.computeIfAbsent(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                    k -> new ArrayList<>()).add(lines[i].substring(colon + 1).strip());
        }
        String target = requestLine[1];
        int q = target.indexOf('?');
        return new HttpRequestHead(requestLine[0], q < 0 ? target : target.substring(0, q),
                q < 0 ? null : target.substring(q + 1), fields);
    }

    @Override
    public String getMethod() {
        return method;
    }

    @Override
    public String getRequestPath() {
        return path;
    }

    @Override
    public String getQueryString() {
        return query;
    }

    @Override
    public Enumeration<String> getHeaders(String name) {
        return Collections.enumeration(fields.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()));
    }
}
