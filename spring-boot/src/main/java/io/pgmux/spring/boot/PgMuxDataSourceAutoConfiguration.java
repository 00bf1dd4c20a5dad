package io.pgmux.spring.boot;

import io.pgmux.jdbc.PgMuxDataSource;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * With pgmux on the class path and {@code spring.datasource.url} set, the application's DataSource is a
 * {@link PgMuxDataSource}: {@code spring.datasource.url}, {@code username} and {@code password} as for any pool,
 * and every pgmux setting under {@code spring.datasource.pgmux} (HikariCP's names: {@code maximum-pool-size},
 * {@code connection-timeout}, …, and pgmux's: {@code pool-mode}, {@code reserve-pool-size}, …). Runs before
 * Spring Boot's own DataSource configuration, which then backs off; {@code spring.datasource.type} naming
 * another pool turns it off.
 *
 * <p>The same class serves Spring Boot 3.5 and 4 (each starter compiles it against its line): it names Spring
 * Boot's DataSource configuration by its two class names, and reads the {@code spring.datasource} keys itself
 * rather than through {@code DataSourceProperties}, whose package Boot 4 moved.
 */
@AutoConfiguration(beforeName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"})
@ConditionalOnClass({DataSource.class, PgMuxDataSource.class})
public class PgMuxDataSourceAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(DataSource.class)
    @ConditionalOnProperty(prefix = "spring.datasource", name = "url")
    @ConditionalOnProperty(name = "spring.datasource.type", havingValue = "io.pgmux.jdbc.PgMuxDataSource",
            matchIfMissing = true)
    @ConfigurationProperties("spring.datasource.pgmux")
    public PgMuxDataSource dataSource(Environment environment) {
        Binder binder = Binder.get(environment);
        PgMuxDataSource dataSource = new PgMuxDataSource();
        binder.bind("spring.datasource.driver-class-name", String.class).ifBound(dataSource::setDriverClassName);
        binder.bind("spring.datasource.url", String.class).ifBound(dataSource::setJdbcUrl);
        binder.bind("spring.datasource.username", String.class).ifBound(dataSource::setUsername);
        binder.bind("spring.datasource.password", String.class).ifBound(dataSource::setPassword);
        return dataSource;
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
