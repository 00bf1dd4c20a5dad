package io.pgmux.spring.boot;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The smallest Spring Boot application: auto-configuration and this package's service. */
@SpringBootApplication
public class TestApplication {
}
