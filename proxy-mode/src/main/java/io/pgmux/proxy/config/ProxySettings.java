package io.pgmux.proxy.config;

import io.pgmux.core.config.ConfigException;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.proxy.config.ProxySetting.Change;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The values of a proxy's {@code [pgbouncer]} settings, immutable: the proxy's own, and the global pool settings as
 * core's {@link PoolConfig}. Built from the ini file or the proxy's builder; RELOAD makes a new one.
 */
public final class ProxySettings {
    /** The proxy's own settings taken globally; a file or address setting that is not set is null. */
    private final Map<ProxySetting, Object> values;
    private final PoolConfig pool;

    private ProxySettings(Map<ProxySetting, Object> values, PoolConfig pool) {
        this.values = values;
        this.pool = pool;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The value of one of the proxy's own settings, of the type its {@link ProxySetting.Type} names: Integer,
     * Duration, String, Path (null when not set), List of user names, AuthType, TlsMode, InetSocketAddress (unresolved;
     * null when off).
     */
    @SuppressWarnings("unchecked")
    public <T> T get(ProxySetting setting) {
        if (!values.containsKey(setting)) {
            throw new IllegalArgumentException(setting.configName() + " is no setting of the proxy's own");
        }
        return (T) values.get(setting);
    }

    /** The global pool settings. */
    public PoolConfig pool() {
        return pool;
    }

    /** The value of a global setting as SHOW CONFIG prints it. */
    public String text(ProxySetting setting) {
        return setting.poolKey() != null ? setting.poolText(pool.describe().get(setting.poolKey().pgbouncerName()))
                : setting.format(get(setting));
    }

    /** The settings that differ in {@code fresh} but only take effect after a restart. */
    public List<ProxySetting> restartOnlyChanges(ProxySettings fresh) {
        List<ProxySetting> changed = new ArrayList<>();
        for (ProxySetting s : ProxySetting.all(Scope.GLOBAL)) {
            if (s.change() == Change.RESTART && !Objects.equals(text(s), fresh.text(s))) {
                changed.add(s);
            }
        }
        return changed;
    }

    /**
     * These settings with one global setting changed, as the admin console's SET changes it (file names relative to
     * {@code base}).
     *
     * @throws IllegalArgumentException naming the key, for a value it cannot take
     * @throws ConfigException for a pool setting that no longer fits the others
     */
    public ProxySettings with(ProxySetting setting, String value, Path base) {
        if (setting.poolKey() != null) {
            return new ProxySettings(values, pool.toBuilder().set(setting.configName(), value).build());
        }
        Map<ProxySetting, Object> next = new EnumMap<>(values);
        next.put(setting, setting.checked(setting.parse(value, base)));
        return new ProxySettings(Collections.unmodifiableMap(next), pool);
    }

    /** These settings with the ones RELOAD applies taken from {@code fresh}. */
    public ProxySettings reloaded(ProxySettings fresh) {
        Map<ProxySetting, Object> next = new EnumMap<>(ProxySetting.class);
        values.forEach((s, v) -> next.put(s, s.change() == Change.RELOAD ? fresh.values.get(s) : v));
        return new ProxySettings(Collections.unmodifiableMap(next), fresh.pool);
    }

    /** Collects settings, each checked as it comes; {@link #build()} checks the pool settings together. */
    public static final class Builder {
        private final Map<ProxySetting, Object> values = new EnumMap<>(ProxySetting.class);
        private final PoolConfig.Builder pool = PoolConfig.proxyDefaults();

        private Builder() {
            for (ProxySetting s : ProxySetting.all(Scope.GLOBAL)) {
                if (s.poolKey() == null) {
                    values.put(s, s.parse(s.defaultText(), Path.of("")));
                }
            }
        }

        /**
         * A {@code [pgbouncer]} setting as written in the ini file, by PgBouncer's name (pool settings also by
         * core's other names).
         *
         * @param base where relative file names are looked up
         * @throws IllegalArgumentException naming the key, for a name pgmux takes no global setting under or a
         *     value that cannot be used
         */
        public Builder set(String name, String value, Path base) {
            ProxySetting setting = ProxySetting.global(name);
            if (setting == null) {
                throw new ConfigException(name, ProxySetting.unknown("setting", name, Scope.GLOBAL));
            }
            if (setting.poolKey() != null) {
                pool.set(name, value);
            } else {
                values.put(setting, setting.parse(value, base));
            }
            return this;
        }

        /** One of the proxy's own settings as PgBouncer writes it; file names relative to the working directory. */
        public Builder set(ProxySetting setting, String value) {
            put(setting, setting.parse(value, Path.of("")));
            return this;
        }

        /** One of the proxy's own settings, as a value of its type (see {@link ProxySettings#get}). */
        public Builder put(ProxySetting setting, Object value) {
            if (setting.poolKey() != null || !setting.takenIn(Scope.GLOBAL)) {
                throw new IllegalArgumentException(setting.configName() + " is no setting of the proxy's own");
            }
            if (value == null && setting.type() != ProxySetting.Type.FILE
                    && setting.type() != ProxySetting.Type.HOST_PORT) {
                throw new NullPointerException(setting.configName());
            }
            values.put(setting, setting.checked(value));
            return this;
        }

        /** A value set so far, or the default; see {@link ProxySettings#get}. */
        @SuppressWarnings("unchecked")
        public <T> T get(ProxySetting setting) {
            return (T) values.get(setting);
        }

        /** The global pool settings, to set by name or type. */
        public PoolConfig.Builder pool() {
            return pool;
        }

        /** @throws ConfigException for pool settings that do not fit together */
        public ProxySettings build() {
            return new ProxySettings(Collections.unmodifiableMap(new EnumMap<>(values)), pool.build());
        }
    }
}
