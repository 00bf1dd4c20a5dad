package io.pgmux.proxy;

import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.proxy.admin.AdminConsole;
import io.pgmux.proxy.client.ClientConnection;
import io.pgmux.proxy.client.PinCounts;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.TransportKind;
import io.pgmux.proxy.metrics.PrometheusEndpoint;
import io.pgmux.proxy.server.ServerConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * pgmux as a PostgreSQL protocol proxy inside a JVM: a listener that any PostgreSQL client connects to, pooling
 * server connections as PgBouncer does.
 *
 * <pre>{@code
 * PgMuxProxy proxy = PgMuxProxy.builder()
 *         .listen("127.0.0.1", 6432)
 *         .database("app", "postgresql://app:secret@127.0.0.1:5432/app")
 *         .poolMode(PoolMode.TRANSACTION)
 *         .authType(AuthType.SCRAM_SHA_256).authFile(Path.of("userlist.txt"))
 *         .start();
 * }</pre>
 *
 * The builder ({@link ProxyBuilder}), the start ({@link ProxyStart}), the settings in effect and their changes
 * ({@link SettingsApply}) and the shutdown ({@link ProxyShutdown}) each have a class of their own; this is their
 * face.
 */
public final class PgMuxProxy implements AutoCloseable {
    private final RunningProxy running;
    private final AdminConsole console;
    private final SettingsApply settings;
    private final ProxyShutdown shutdown;

    PgMuxProxy(RunningProxy running, AdminConsole console, SettingsApply settings, ProxyShutdown shutdown) {
        this.running = running;
        this.console = console;
        this.settings = settings;
        this.shutdown = shutdown;
    }

    public static ProxyBuilder builder() {
        return new ProxyBuilder();
    }

    /** The port the listeners are bound to (useful after {@code listen(host, 0)}). */
    public int port() {
        return running.listeners().port();
    }

    /** The first listen_addr's address, or null when only the Unix socket listens. */
    public String host() {
        InetSocketAddress first = running.listeners().firstTcpAddress();
        return first == null ? null : first.getHostString();
    }

    /** Where it listens, as PgBouncer logs it: {@code 127.0.0.1:6432}, {@code [::1]:6432}, {@code unix:/tmp/.s.PGSQL.6432}. */
    public List<String> listening() {
        return running.listeners().describe();
    }

    /** The Unix socket's file ({@code <unix_socket_dir>/.s.PGSQL.<port>}), or null without one. */
    public Path unixSocket() {
        return running.listeners().unixSocket();
    }

    /** Where {@code metrics_listen} serves {@code /metrics}, with the port it bound; empty when it is off. */
    public Optional<InetSocketAddress> metricsAddress() {
        return Optional.ofNullable(running.metrics()).map(PrometheusEndpoint::address);
    }

    /** Removes the Unix socket's file and lock without closing anything: for an exit that skips {@link #close()}. */
    public void removeUnixSocket() {
        running.listeners().removeUnixSocketFile();
    }

    /** The pools, for SHOW POOLS-style monitoring and administration. */
    public PoolRegistry<ServerConnection> registry() {
        return running.registry();
    }

    /**
     * The clients of the pool of ({@code database}, {@code user}) pinned to their server by session state
     * (pin_session_state), per reason.
     */
    public PinCounts pinCounts(String database, String user) {
        return running.context().pinCounts(new PoolKey(database, user));
    }

    /** Clients logged in now. */
    public int clientCount() {
        return running.context().clientCount();
    }

    /** The clients logged in to a database now, each with its socket. */
    Collection<ClientConnection> clients() {
        return running.context().clients();
    }

    /**
     * The proxy's executor for what blocks and so runs off the event loops: its RELOAD, SET and SHUTDOWN, name
     * lookups, TLS setup. A few daemon threads, none while idle; it takes no work once the proxy is closed.
     */
    public Executor blockingWork() {
        return running.transport().blockingWork();
    }

    public boolean isEpoll() {
        return running.transport().isEpoll();
    }

    /** The transport the event loops run (pgmux's transport setting, or NIO where epoll could not load). */
    public TransportKind transport() {
        return running.transport().kind();
    }

    /**
     * Stops accepting clients, lets transactions in flight finish for up to the drain timeout (new ones are
     * refused with {@code pooler is shutting down}), then closes every client and server connection.
     */
    @Override
    public void close() {
        shutdown.close();
    }

    /**
     * PgBouncer's SHUTDOWN WAIT_FOR_SERVERS: stops accepting on TCP (the Unix socket still takes the admin console,
     * and refuses other clients with {@code pooler is shutting down}), fails those waiting for a server with
     * {@code server shutting down}, lets transactions in flight finish however long they take, then closes
     * everything. What else should end it sooner is {@link #close()} from another thread, or leaving the process.
     */
    public void closeWaitForServers() {
        shutdown.closeWaitForServers();
    }

    /**
     * PgBouncer's SHUTDOWN WAIT_FOR_CLIENTS: stops accepting on TCP (the Unix socket still takes the admin console,
     * and refuses other clients with {@code pooler is shutting down}) and closes once every client has left on its
     * own.
     *
     * @throws InterruptedException when interrupted while clients remain
     */
    public void closeWaitForClients() throws InterruptedException {
        shutdown.closeWaitForClients();
    }

    /** The admin console's SHUTDOWN, on the executor for blocking work: closing blocks. */
    void shutdown(AdminConsole.Shutdown mode) {
        shutdown.shutdown(mode);
    }

    /** The admin console's PAUSE for every database; completes once no server is in use. */
    public CompletionStage<Void> pause() {
        return console.pause();
    }

    /** The admin console's RESUME for every database. */
    public void resume() {
        console.resume();
    }

    /** Whether a shutdown (close, SHUTDOWN or its WAIT_FOR_ forms) has begun. */
    public boolean isShuttingDown() {
        return running.context().isShuttingDown();
    }

    /**
     * The admin console's RELOAD: loads the configuration again from where it came from and applies what a running
     * proxy can change, as PgBouncer does: databases added, changed (new server connections go to the new target;
     * those open close once released) and removed (their clients are disconnected with {@code database removed}),
     * the users and secrets of the auth file, the settings {@link ProxySetting} marks as reloadable, and the pool
     * settings per database and per user. The rest takes a restart, and is logged as such. Either way the
     * {@link #onSettingsApplied} listener hears of the settings in effect afterwards: PgBouncer reopens its logfile
     * at the end of every RELOAD, of a broken ini too, and logrotate relies on that.
     *
     * @throws IllegalStateException when the proxy was not configured from a file
     * @throws Exception what loading the configuration threw; the running settings are kept then
     */
    public void reload() throws Exception {
        settings.reload();
    }

    /**
     * SIGHUP's {@link #reload}: run on the executor for blocking work, the listeners accepting nobody from now until
     * it is over, so that a client that connects after this call is served by the reloaded settings, as in PgBouncer.
     *
     * @return completes when the reload is over; fails with what {@link #reload} threw
     */
    public CompletableFuture<Void> reloadInBackground() {
        return settings.reloadInBackground();
    }

    /** Where RELOAD loads the configuration from. */
    @FunctionalInterface
    public interface ConfigSource {
        /**
         * A fresh builder.
         *
         * @param conffile the conffile setting of now: the file to read, null when the proxy was built in code
         */
        ProxyBuilder load(Path conffile) throws Exception;
    }

    /**
     * The admin console's SET: one global setting changed at once, as RELOAD would change it. A client_tls_* or
     * server_tls_* value the TLS cannot be set up with is taken all the same while the TLS in use stays, as in
     * PgBouncer: a key and its certificate change one SET at a time.
     *
     * @return PgBouncer's NOTICE when the TLS in use stays, else empty
     * @throws IllegalArgumentException for a value the setting cannot take, or a file that cannot be read
     */
    public Optional<String> set(ProxySetting setting, String value) throws IOException {
        return settings.set(setting, value);
    }

    /**
     * Calls {@code listener} with the settings each RELOAD (one that failed too) and SET leaves in effect, from then
     * on, on the thread that ran them and outside the proxy's lock (the listener may open files).
     */
    public void onSettingsApplied(Consumer<ProxySettings> listener) {
        settings.onSettingsApplied(listener);
    }

    /** Completes once the proxy is closed, by {@link #close()} or the admin console's SHUTDOWN. */
    public CompletionStage<Void> closeFuture() {
        return shutdown.closeFuture();
    }
}
