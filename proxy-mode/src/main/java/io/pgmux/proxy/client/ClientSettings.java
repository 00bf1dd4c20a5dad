package io.pgmux.proxy.client;

import io.pgmux.proxy.config.PinSessionState;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import io.pgmux.proxy.protocol.NoticeResponse;
import io.pgmux.proxy.protocol.PoolerError;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The settings clients read as they log in and run, in the form they read them: made once per start, RELOAD or SET
 * from the settings then in effect and swapped whole, so that a client reads one consistent set without a lock.
 *
 * @param maxMessageLength max_packet_size within PostgreSQL's limit, for clients that connect from now on
 * @param disablePqexec whether a simple-protocol Query closes its client
 * @param loginNotice login_notify_message's NOTICE, or null when it is empty
 * @param ignoredStartupParameters ignore_startup_parameters, in lower case
 * @param applicationNameAddHost whether the client's address is added to its application_name
 * @param pinSessionState pin_session_state of the {@code [pgbouncer]} section
 * @param pinSessionStateByDatabase the databases' own pin_session_state
 * @param loginTimeout client_login_timeout; zero for none
 * @param limits the client timeouts of the {@code [pgbouncer]} section
 * @param userLimits the {@code [users]} entries' own client timeouts
 * @param queryWaitNotifySeconds query_wait_notify: a client still waiting for a server after it is told so once
 * @param serverFastClose server_fast_close: a server marked close_needed closes, with its client, once its
 *     transaction ended, in session mode too
 */
public record ClientSettings(int maxMessageLength, boolean disablePqexec, NoticeResponse loginNotice,
        Set<String> ignoredStartupParameters, boolean applicationNameAddHost, PinSessionState pinSessionState,
        Map<String, PinSessionState> pinSessionStateByDatabase, Duration loginTimeout, ClientTimeouts.Limits limits,
        Map<String, ClientTimeouts.Limits> userLimits, int queryWaitNotifySeconds, boolean serverFastClose) {

    /** Before the proxy applies its own. */
    static final ClientSettings DEFAULTS = of(ProxySettings.builder().build(), Map.of(), Map.of());

    /**
     * The clients' settings among {@code settings}, with the databases' own pin_session_state and the users' own
     * timeouts.
     */
    public static ClientSettings of(ProxySettings settings, Map<String, PinSessionState> pinSessionStateByDatabase,
            Map<String, ClientTimeouts.Limits> userLimits) {
        Set<String> ignored = new HashSet<>();
        settings.<List<String>>get(ProxySetting.IGNORE_STARTUP_PARAMETERS)
                .forEach(name -> ignored.add(name.toLowerCase(Locale.ROOT)));
        String loginMessage = settings.get(ProxySetting.LOGIN_NOTIFY_MESSAGE);
        // a length counts at least its own four bytes
        int maxMessageLength = Math.max(4, Math.min(settings.<Integer>get(ProxySetting.MAX_PACKET_SIZE),
                FrontendMessageDecoder.DEFAULT_MAX_MESSAGE_LENGTH));
        return new ClientSettings(maxMessageLength, settings.get(ProxySetting.DISABLE_PQEXEC),
                loginMessage.isEmpty() ? null : PoolerError.loginNotice(loginMessage), Set.copyOf(ignored),
                settings.<Integer>get(ProxySetting.APPLICATION_NAME_ADD_HOST) != 0,
                settings.get(ProxySetting.PIN_SESSION_STATE), Map.copyOf(pinSessionStateByDatabase),
                settings.get(ProxySetting.CLIENT_LOGIN_TIMEOUT), limits(settings::get), Map.copyOf(userLimits),
                settings.get(ProxySetting.QUERY_WAIT_NOTIFY), settings.get(ProxySetting.SERVER_FAST_CLOSE));
    }

    /** The client timeouts {@code value} gives: of the {@code [pgbouncer]} section, or a {@code [users]} entry's. */
    public static ClientTimeouts.Limits limits(Function<ProxySetting, Duration> value) {
        return new ClientTimeouts.Limits(value.apply(ProxySetting.CLIENT_IDLE_TIMEOUT),
                value.apply(ProxySetting.IDLE_TRANSACTION_TIMEOUT), value.apply(ProxySetting.QUERY_TIMEOUT),
                value.apply(ProxySetting.TRANSACTION_TIMEOUT));
    }
}
