package io.pgmux.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot application whose DataSource is a PgMuxDataSource in transaction mode: many threads'
 * {@code @Transactional} transfers share a few server connections. Nothing here names pgmux but the
 * dependency and the {@code spring.datasource.pgmux.*} keys of application.yml.
 */
@SpringBootApplication
public class ExampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(ExampleApplication.class, args);
    }
}
