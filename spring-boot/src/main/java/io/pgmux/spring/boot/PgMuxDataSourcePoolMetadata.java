package io.pgmux.spring.boot;

import io.pgmux.core.stats.PgMuxPoolMXBean;
import io.pgmux.jdbc.PgMuxDataSource;
import javax.sql.DataSource;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.jdbc.metadata.AbstractDataSourcePoolMetadata;

/**
 * A PgMuxDataSource's pool as Spring Boot's Actuator reports it: active and idle are server connections
 * (SHOW POOLS {@code sv_active}, {@code sv_idle} + {@code sv_used}), max and min the pool's size limits; usage
 * is active over max. Before the pool starts active and idle are unknown (null), as for HikariCP.
 */
public final class PgMuxDataSourcePoolMetadata extends AbstractDataSourcePoolMetadata<PgMuxDataSource> {

    public PgMuxDataSourcePoolMetadata(PgMuxDataSource dataSource) {
        super(dataSource);
    }

    /** The metadata of {@code dataSource} if it is, or wraps, a PgMuxDataSource; else null. */
    static PgMuxDataSourcePoolMetadata of(DataSource dataSource) {
        PgMuxDataSource pgmux = DataSourceUnwrapper.unwrap(dataSource, PgMuxDataSource.class);
        return pgmux == null ? null : new PgMuxDataSourcePoolMetadata(pgmux);
    }

    @Override
    public Integer getActive() {
        PgMuxPoolMXBean pool = getDataSource().getPoolMXBean();
        return pool == null ? null : pool.getActiveConnections();
    }

    @Override
    public Integer getIdle() {
        PgMuxPoolMXBean pool = getDataSource().getPoolMXBean();
        return pool == null ? null : pool.getIdleConnections();
    }

    @Override
    public Integer getMax() {
        return getDataSource().getMaximumPoolSize();
    }

    @Override
    public Integer getMin() {
        return getDataSource().getMinimumIdle();
    }

    @Override
    public String getValidationQuery() {
        return getDataSource().getConnectionTestQuery();
    }

    @Override
    public Boolean getDefaultAutoCommit() {
        return getDataSource().isAutoCommit();
    }
}
