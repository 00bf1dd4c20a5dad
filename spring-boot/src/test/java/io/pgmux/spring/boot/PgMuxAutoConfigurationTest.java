package io.pgmux.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgmux.core.config.ConfigKey;
import io.pgmux.core.stats.IMetricsTracker;
import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Which DataSource an application gets, and how, with the starter on its class path; run on each Spring Boot line
 * by a subclass that names the line's own DataSourceAutoConfiguration.
 */
@PostgresTest
abstract class PgMuxAutoConfigurationTest {
    private final TestDatabase database;
    private final Class<?> dataSourceAutoConfiguration;
    private final ApplicationContextRunner runner;

    PgMuxAutoConfigurationTest(TestDatabase database, Class<?> dataSourceAutoConfiguration) {
        this.database = database;
        this.dataSourceAutoConfiguration = dataSourceAutoConfiguration;
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PgMuxDataSourceAutoConfiguration.class,
                        PgMuxMetricsAutoConfiguration.class, dataSourceAutoConfiguration))
                .withPropertyValues("spring.datasource.username=" + database.superuser(),
                        "spring.datasource.password=" + database.superuserPassword());
    }

    private String url() {
        return "spring.datasource.url=" + database.jdbcUrl();
    }

    private static int selectOne(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void bindsEveryPgmuxSettingUnderSpringDatasourcePgmux() {
        runner.withPropertyValues(url(), "spring.datasource.pgmux.pool-mode=session",
                        "spring.datasource.pgmux.reserve-pool-size=2", "spring.datasource.pgmux.minimum-idle=1",
                        "spring.datasource.pgmux.max-client-conn=50")
                .run(context -> {
                    PgMuxDataSource ds = context.getBean(PgMuxDataSource.class);
                    assertEquals("session", ds.getPoolMode().configName());
                    assertEquals(2, ds.getReservePoolSize());
                    assertEquals(1, ds.getMinimumIdle());
                    assertEquals(50, ds.getMaxClientConn());
                    assertEquals(1, selectOne(ds));
                });
    }

    @Test
    void runsBeforeThisBootLinesDataSourceAutoConfiguration() {
        assertThat(PgMuxDataSourceAutoConfiguration.class.getAnnotation(AutoConfiguration.class).beforeName())
                .contains(dataSourceAutoConfiguration.getName());
    }

    @Test
    void winsOverHikariCpOnTheClassPath() {
        runner.withPropertyValues(url()).run(context -> {
            assertThat(context).hasSingleBean(DataSource.class);
            assertThat(context).doesNotHaveBean(HikariDataSource.class);
            assertEquals(1, selectOne(context.getBean(PgMuxDataSource.class)));
        });
    }

    @Test
    void refusesADriverOtherThanPgjdbcAtStartWithItsReason() {
        runner.withPropertyValues(url(), "spring.datasource.driver-class-name=org.h2.Driver")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("org.h2.Driver");
                });
    }

    @Test
    void refusesASettingPgmuxCannotHonourAtStartWithItsReason() {
        runner.withPropertyValues(url(), "spring.datasource.pgmux.data-source-class-name=org.postgresql.ds.PGSimpleDataSource")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("jdbcUrl");
                });
    }

    @Test
    void springDatasourceTypeWorksThroughSpringBootsOwnDataSourceBuilder() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(dataSourceAutoConfiguration))
                .withPropertyValues(url(), "spring.datasource.type=io.pgmux.jdbc.PgMuxDataSource",
                        "spring.datasource.username=" + database.superuser(),
                        "spring.datasource.password=" + database.superuserPassword())
                .run(context -> assertEquals(1, selectOne(context.getBean(PgMuxDataSource.class))));
        try (PgMuxDataSource built = DataSourceBuilder.create().type(PgMuxDataSource.class).url(database.jdbcUrl())
                .username(database.superuser()).password(database.superuserPassword()).build()) {
            assertEquals(1, selectOne(built));
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnDataSource() {
        runner.withPropertyValues(url()).withUserConfiguration(OwnDataSource.class).run(context -> {
            assertThat(context).hasSingleBean(DataSource.class);
            assertEquals("own", context.getBean(PgMuxDataSource.class).getPoolName());
        });
    }

    @Test
    void backsOffWhenSpringDatasourceTypeNamesAnotherPool() {
        runner.withPropertyValues(url(), "spring.datasource.type=org.springframework.jdbc.datasource.SimpleDriverDataSource")
                .run(context -> {
                    assertThat(context).hasSingleBean(DataSource.class);
                    assertThat(context).doesNotHaveBean(PgMuxDataSource.class);
                });
    }

    @Test
    void publishesMetersToTheApplicationsRegistryWithoutActuator() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runner.withPropertyValues(url(), "spring.datasource.pgmux.pool-name=metered")
                .withBean(SimpleMeterRegistry.class, () -> registry)
                .run(context -> {
                    assertEquals(1, selectOne(context.getBean(DataSource.class)));
                    assertEquals(1, registry.get("pgmux.connections.creation").tag("pool", "metered").timer().count());
                });
    }

    @Test
    void keepsATrackerTheApplicationGaveItsDataSource() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runner.withPropertyValues(url()).withUserConfiguration(OwnDataSource.class)
                .withBean(SimpleMeterRegistry.class, () -> registry)
                .run(context -> {
                    assertEquals(1, selectOne(context.getBean(DataSource.class)));
                    assertTrue(registry.find("pgmux.connections").meters().isEmpty());
                });
    }

    @Test
    void configurationMetadataListsEveryPoolSetting() throws IOException {
        String metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (ConfigKey key : ConfigKey.values()) {
            String name = key.hikariName() != null ? key.hikariName() : key.camelName();
            String kebab = name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
            assertTrue(metadata.contains("\"spring.datasource.pgmux." + kebab + "\""), kebab);
        }
        assertTrue(metadata.contains("PgBouncer's pool_mode"), "keys are described for IDEs");
    }

    @Test
    void configurationMetadataListsTheReadRoutingSettings() throws IOException {
        String metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String kebab : new String[] {"read-routing", "read-your-writes", "replica-wait-timeout",
                "replica-check-period", "replica-max-lag"}) {
            assertTrue(metadata.contains("\"spring.datasource.pgmux." + kebab + "\""), kebab);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnDataSource {
        @Bean
        PgMuxDataSource ownDataSource(Environment environment) {
            PgMuxDataSource ds = new PgMuxDataSource();
            ds.setJdbcUrl(environment.getProperty("spring.datasource.url"));
            ds.setUsername(environment.getProperty("spring.datasource.username"));
            ds.setPassword(environment.getProperty("spring.datasource.password"));
            ds.setPoolName("own");
            ds.setMetricsTrackerFactory((name, stats) -> new IMetricsTracker() { });
            return ds;
        }
    }
}
