package io.pgmux.jdbc;

/**
 * The settings of a {@link PgMuxDataSource} that may change while its pool runs: HikariCP's
 * {@code HikariConfigMXBean}. Each setter takes effect at once (a smaller pool closes idle server connections
 * above it, a larger one serves waiting borrowers, a new password is used by the next login); every other
 * setting is sealed once the pool starts. Registered as {@code io.pgmux:type=PoolConfig,name=<poolName>} when
 * {@code registerMbeans} is set.
 */
public interface PgMuxConfigMXBean {
    long getConnectionTimeout();

    void setConnectionTimeout(long connectionTimeoutMs);

    long getValidationTimeout();

    void setValidationTimeout(long validationTimeoutMs);

    long getIdleTimeout();

    void setIdleTimeout(long idleTimeoutMs);

    long getLeakDetectionThreshold();

    void setLeakDetectionThreshold(long leakDetectionThresholdMs);

    long getMaxLifetime();

    void setMaxLifetime(long maxLifetimeMs);

    int getMinimumIdle();

    void setMinimumIdle(int minimumIdle);

    int getMaximumPoolSize();

    void setMaximumPoolSize(int maximumPoolSize);

    /** The password of the server connections opened from now on. */
    void setPassword(String password);

    String getPoolName();
}
