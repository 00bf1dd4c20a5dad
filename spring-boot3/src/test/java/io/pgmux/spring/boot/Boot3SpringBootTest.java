package io.pgmux.spring.boot;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.actuate.health.HealthIndicator;

/** The Spring Boot application on Boot 3.5, whose health API is spring-boot-actuator's. */
@PostgresTest
class Boot3SpringBootTest extends PgMuxSpringBootTest {
    @Autowired
    private HealthContributorRegistry health;

    Boot3SpringBootTest(TestDatabase database) {
        super(database);
    }

    @Override
    DbHealth dbHealth() {
        Health db = ((HealthIndicator) health.getContributor("db")).getHealth(true);
        return new DbHealth(db.getStatus().getCode(), db.getDetails());
    }
}
