package io.pgmux.spring.boot;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;

/** The starter's auto-configuration beside Spring Boot 4's, which lives in spring-boot-jdbc. */
@PostgresTest
class Boot4AutoConfigurationTest extends PgMuxAutoConfigurationTest {
    Boot4AutoConfigurationTest(TestDatabase database) {
        super(database, DataSourceAutoConfiguration.class);
    }
}
