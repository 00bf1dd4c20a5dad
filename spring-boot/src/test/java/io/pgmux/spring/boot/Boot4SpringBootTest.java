package io.pgmux.spring.boot;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.registry.HealthContributorRegistry;

/** The Spring Boot application on Boot 4, whose health API is spring-boot-health's. */
@PostgresTest
class Boot4SpringBootTest extends PgMuxSpringBootTest {
    @Autowired
    private HealthContributorRegistry health;

    Boot4SpringBootTest(TestDatabase database) {
        super(database);
    }

    @Override
    DbHealth dbHealth() {
        Health db = ((HealthIndicator) health.getContributor("db")).health(true);
        return new DbHealth(db.getStatus().getCode(), db.getDetails());
    }
}
