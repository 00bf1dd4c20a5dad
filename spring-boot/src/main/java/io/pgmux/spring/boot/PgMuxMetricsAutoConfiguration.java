package io.pgmux.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgmux.jdbc.PgMuxDataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Publishes every PgMuxDataSource's {@code pgmux.*} meters to the application's MeterRegistry (Actuator's),
 * as Spring Boot does for HikariCP. The registry is handed over as each data source is initialised, before
 * anything can start its pool; a data source given a registry or tracker of its own keeps it.
 */
@AutoConfiguration
@ConditionalOnClass({MeterRegistry.class, PgMuxDataSource.class})
public class PgMuxMetricsAutoConfiguration {

    @Bean
    static BeanPostProcessor pgMuxDataSourceMeterBinder(ObjectProvider<MeterRegistry> registries) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof PgMuxDataSource) {
                    PgMuxDataSource dataSource = (PgMuxDataSource) bean;
                    if (!dataSource.isRunning() && dataSource.getMetricRegistry() == null
                            && dataSource.getMetricsTrackerFactory() == null) {
                        MeterRegistry registry = registries.getIfUnique();
                        if (registry != null) {
                            dataSource.setMetricRegistry(registry);
                        }
                    }
                }
                return bean;
            }
        };
    }
}
