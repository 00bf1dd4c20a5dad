package io.pgmux.proxy.transport;

import java.net.InetAddress;
import java.security.Security;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * The host names this proxy has looked up, for SHOW DNS_HOSTS. The JVM caches the answers and does not list its
 * cache, so each lookup is recorded here with the time the JVM keeps it ({@code networkaddress.cache.ttl}, 30
 * seconds by default); a name is listed until then, as PgBouncer lists its own cache's names.
 */
public final class DnsHosts {
    private static final long DEFAULT_TTL_SECONDS = 30;

    /** One name as SHOW DNS_HOSTS shows it: seconds until the next lookup (-1: cached for ever), addresses. */
    public record Host(String name, long ttlSeconds, String addresses) {
    }

    private record Lookup(String addresses, long atNanos) {
    }

    private final Map<String, Lookup> lookups = new ConcurrentHashMap<>();
    private final long ttlSeconds;
    private final LongSupplier nanoTime;

    DnsHosts() {
        this(cacheTtlSeconds(), System::nanoTime);
    }

    DnsHosts(long ttlSeconds, LongSupplier nanoTime) {
        this.ttlSeconds = ttlSeconds;
        this.nanoTime = nanoTime;
    }

    /** Records a lookup of {@code name} that answered {@code addresses}. */
    public void looked(String name, InetAddress... addresses) {
        String text = Arrays.stream(addresses).map(InetAddress::getHostAddress).collect(Collectors.joining(","));
        lookups.put(name, new Lookup(text, nanoTime.getAsLong()));
    }

    /** The names whose answers the JVM still keeps, in no particular order. */
    public List<Host> hosts() {
        long now = nanoTime.getAsLong();
        List<Host> hosts = new ArrayList<>();
        lookups.forEach((name, lookup) -> {
            if (ttlSeconds < 0) {
                hosts.add(new Host(name, -1, lookup.addresses()));
                return;
            }
            long left = ttlSeconds - (now - lookup.atNanos()) / 1_000_000_000L;
            if (left > 0) {
                hosts.add(new Host(name, left, lookup.addresses()));
            } else {
                lookups.remove(name, lookup);
            }
        });
        return hosts;
    }

    /** The JVM's positive lookup cache time: the security property, else the older system property, else 30. */
    static long cacheTtlSeconds() {
        String value = Security.getProperty("networkaddress.cache.ttl");
        if (value == null) {
            value = System.getProperty("sun.net.inetaddr.ttl");
        }
        if (value == null) {
            return DEFAULT_TTL_SECONDS;
        }
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            return DEFAULT_TTL_SECONDS;
        }
    }
}
