package io.pgmux.spring.boot;

import io.pgmux.jdbc.PgMuxDataSource;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With pgmux on the class path and {@code spring.datasource.url} set, the application's DataSource is a
 * {@link PgMuxDataSource}: {@code spring.datasource.url}, {@code username} and {@code password} as for any pool,
 * and every pgmux setting under {@code spring.datasource.pgmux} (HikariCP's names: {@code maximum-pool-size},
 * {@code connection-timeout}, …, and pgmux's: {@code pool-mode}, {@code reserve-pool-size}, …). Runs before
 * Spring Boot's own DataSource configuration, which then backs off; {@code spring.datasource.type} naming
 * another pool turns it off.
 */
@AutoConfiguration(before = DataSourceAutoConfiguration.class)
@ConditionalOnClass({DataSource.class, PgMuxDataSource.class})
@EnableConfigurationProperties(DataSourceProperties.class)
public class PgMuxDataSourceAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(DataSource.class)
    @ConditionalOnProperty(prefix = "spring.datasource", name = "url")
    @ConditionalOnProperty(name = "spring.datasource.type", havingValue = "io.pgmux.jdbc.PgMuxDataSource",
            matchIfMissing = true)
    @ConfigurationProperties("spring.datasource.pgmux")
    public PgMuxDataSource dataSource(DataSourceProperties properties) {
        return properties.initializeDataSourceBuilder().type(PgMuxDataSource.class).build();
    }

    /** Actuator's and Micrometer's view of any PgMuxDataSource, however it was made. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(DataSourcePoolMetadataProvider.class)
    static class PoolMetadataConfiguration {
        @Bean
        DataSourcePoolMetadataProvider pgMuxDataSourcePoolMetadataProvider() {
            return PgMuxDataSourcePoolMetadata::of;
        }
    }
}
