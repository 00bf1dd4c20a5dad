package io.pgmux.core.stats.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.pgmux.core.fleet.FleetStatus;
import io.pgmux.core.stats.IMetricsTracker;
import io.pgmux.core.stats.PoolStats;
import io.pgmux.core.stats.TrafficStats;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The meters of one pool. Gauges and the SHOW STATS counters read {@link PoolStats} when the registry is
 * scraped; events (acquire, usage, login, timeout) are recorded as they happen, without locks.
 */
final class MicrometerMetricsTracker implements IMetricsTracker {
    private final MeterRegistry registry;
    private final Tags tags;
    /** Copy-on-write: pin counters are added from any thread, rarely. */
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    /** Those of {@link #meters} made when the pool joined its fleet. */
    private final List<Meter> fleetMeters = new CopyOnWriteArrayList<>();
    private final Timer acquire;
    private final Timer usage;
    private final Timer creation;
    private final Counter timeouts;
    private final Counter loginFailures;
    private final ConcurrentHashMap<String, Counter> pins = new ConcurrentHashMap<>();
    private final PoolStats stats;

    MicrometerMetricsTracker(String poolName, PoolStats stats, MeterRegistry registry) {
        this.registry = registry;
        this.stats = stats;
        this.tags = Tags.of("pool", poolName, "database", stats.getDatabase(), "user", stats.getUser(),
                "mode", stats.getPoolMode());

        gauge("pgmux.connections", "Server connections in any state", stats, PoolStats::getTotalConnections);
        gauge("pgmux.connections.active", "Server connections linked to a client (sv_active)", stats,
                PoolStats::getActiveConnections);
        gauge("pgmux.connections.idle", "Server connections idle (sv_idle + sv_used)", stats,
                PoolStats::getIdleConnections);
        gauge("pgmux.connections.login", "Server connections logging in (sv_login)", stats,
                PoolStats::getLoginConnections);
        gauge("pgmux.connections.pending", "Clients waiting for a server connection (cl_waiting)", stats,
                PoolStats::getPendingThreads);
        gauge("pgmux.connections.max", "Server connections the pool may open (default_pool_size)", stats,
                PoolStats::getMaxConnections);
        gauge("pgmux.connections.min", "Server connections kept open (min_pool_size)", stats,
                PoolStats::getMinConnections);
        gauge("pgmux.clients.active", "Clients linked to a server connection or idle (cl_active)", stats,
                PoolStats::getClientsActive);
        gauge("pgmux.clients.waiting", "Clients waiting for a server connection (cl_waiting)", stats,
                PoolStats::getPendingThreads);
        meters.add(TimeGauge.builder("pgmux.clients.maxwait", stats, TimeUnit.MICROSECONDS,
                        PoolStats::getMaxWaitMicros)
                .description("How long the oldest waiting client has waited (maxwait)").tags(tags)
                .strongReference(true).register(registry));
        meters.add(FunctionTimer.builder("pgmux.clients.wait", stats, s -> s.getTraffic().serverAssignmentCount,
                        s -> s.getTraffic().waitTimeMicros, TimeUnit.MICROSECONDS)
                .description("Server assignments and the time clients waited for them (total_server_assignment_count,"
                        + " total_wait_time)")
                .tags(tags).register(registry));

        counter("pgmux.transactions", "Transactions run (total_xact_count)", stats, t -> t.xactCount, null);
        counter("pgmux.transactions.time", "Time spent in transactions (total_xact_time)", stats,
                t -> t.xactTimeMicros / 1e6, "seconds");
        counter("pgmux.queries", "Queries run (total_query_count)", stats, t -> t.queryCount, null);
        counter("pgmux.queries.time", "Time spent in queries (total_query_time)", stats,
                t -> t.queryTimeMicros / 1e6, "seconds");
        counter("pgmux.bytes.received", "Bytes received from clients (total_received)", stats, t -> t.received,
                "bytes");
        counter("pgmux.bytes.sent", "Bytes sent to clients (total_sent)", stats, t -> t.sent, "bytes");

        acquire = register(Timer.builder("pgmux.connections.acquire")
                .description("Time to get a server connection, waiting included").tags(tags));
        usage = register(Timer.builder("pgmux.connections.usage")
                .description("Time a server connection was lent before it came back").tags(tags));
        creation = register(Timer.builder("pgmux.connections.creation")
                .description("Server logins: time to open and log in a server connection").tags(tags));
        timeouts = register(Counter.builder("pgmux.connections.timeout")
                .description("Clients that waited longer than query_wait_timeout").tags(tags));
        loginFailures = register(Counter.builder("pgmux.connections.login.failures")
                .description("Server logins that failed").tags(tags));
    }

    private void gauge(String name, String description, PoolStats stats, ToDoubleFunction<PoolStats> value) {
        meters.add(Gauge.builder(name, stats, value).description(description).tags(tags).strongReference(true)
                .register(registry));
    }

    private void counter(String name, String description, PoolStats stats,
                         ToDoubleFunction<TrafficStats.Totals> value, String baseUnit) {
        meters.add(FunctionCounter.builder(name, stats, s -> value.applyAsDouble(s.getTraffic()))
                .description(description).baseUnit(baseUnit).tags(tags).register(registry));
    }

    private Timer register(Timer.Builder builder) {
        Timer timer = builder.register(registry);
        meters.add(timer);
        return timer;
    }

    private Counter register(Counter.Builder builder) {
        Counter counter = builder.register(registry);
        meters.add(counter);
        return counter;
    }

    @Override
    public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
        acquire.record(elapsedAcquiredNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
        usage.record(elapsedBorrowedMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void recordConnectionCreatedMillis(long connectionCreatedMillis) {
        creation.record(connectionCreatedMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void recordConnectionTimeout() {
        timeouts.increment();
    }

    @Override
    public void recordServerLoginFailure() {
        loginFailures.increment();
    }

    /** Made when the pool joins its fleet, so that a pool outside one has no fleet meters. */
    @Override
    public void recordFleetJoined(String fleet) {
        fleetGauge("pgmux.fleet.share", "Server connections the pool may hold as its fleet's share", fleet,
                FleetStatus::share);
        fleetGauge("pgmux.fleet.lent", "What the pool's share leaves of its equal part of the budget to others",
                fleet, FleetStatus::lent);
        fleetGauge("pgmux.fleet.borrowed", "What the pool's share holds beyond its equal part of the budget",
                fleet, FleetStatus::borrowed);
        fleetGauge("pgmux.fleet.members", "The fleet's members seen at the last heartbeat", fleet,
                FleetStatus::members);
        fleetGauge("pgmux.fleet.budget", "The server connections the fleet's pools hold together at most", fleet,
                FleetStatus::budget);
        fleetGauge("pgmux.fleet.fallback", "1 while coordination failed and the pool holds a fixed share", fleet,
                f -> f.fallback() ? 1 : 0);
    }

    private void fleetGauge(String name, String description, String fleet, ToDoubleFunction<FleetStatus> value) {
        Gauge gauge = Gauge.builder(name, stats, s -> {
            FleetStatus f = s.getFleet();
            return f == null ? Double.NaN : value.applyAsDouble(f);
        }).description(description).tags(tags.and("fleet", fleet)).strongReference(true).register(registry);
        meters.add(gauge);
        fleetMeters.add(gauge);
    }

    /** The pool stays when it leaves its fleet (RELOAD): its fleet meters go. */
    @Override
    public void recordFleetLeft(String fleet) {
        for (Meter meter : fleetMeters) {
            if (fleet.equals(meter.getId().getTag("fleet"))) {
                registry.remove(meter);
                meters.remove(meter);
                fleetMeters.remove(meter);
            }
        }
    }

    @Override
    public void recordConnectionPinned(String reason) {
        Counter c = pins.get(reason);
        if (c == null) {
            c = pins.computeIfAbsent(reason, r -> register(Counter.builder("pgmux.connections.pinned")
                    .description("Logical connections pinned to their server connection, by reason")
                    .tags(tags).tag("reason", r)));
        }
        c.increment();
    }

    @Override
    public void close() {
        meters.forEach(registry::remove);
        meters.clear();
        fleetMeters.clear();
    }
}
