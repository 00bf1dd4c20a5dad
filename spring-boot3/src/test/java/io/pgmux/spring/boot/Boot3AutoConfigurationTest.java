package io.pgmux.spring.boot;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;

/** The starter's auto-configuration beside Spring Boot 3.5's, which lives in spring-boot-autoconfigure. */
@PostgresTest
class Boot3AutoConfigurationTest extends PgMuxAutoConfigurationTest {
    Boot3AutoConfigurationTest(TestDatabase database) {
        super(database, DataSourceAutoConfiguration.class);
    }
}
