package io.pgmux.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated class against a real PostgreSQL with a fresh database of its own; test methods,
 * lifecycle methods and constructors may declare {@link TestDatabase} or {@link PgServer} parameters.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(PostgresExtension.class)
public @interface PostgresTest {

    /**
     * Whether the class's database lives on the fixture's TLS server instead of the shared one: a second
     * embedded PostgreSQL, started on first use, that serves TLS 1.3 with {@link ServerCertificates} and lets
     * users in by {@link TlsRule}. A {@code @Nested} class takes its enclosing class's choice.
     */
    boolean tls() default false;
}
