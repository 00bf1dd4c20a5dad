package io.pgmux.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives each test class a fresh database on the JVM's shared server and injects {@link TestDatabase} and
 * {@link PgServer} parameters. Use it through {@link PostgresTest} or {@code @ExtendWith}.
 *
 * <p>The database is made on first need (a constructor of a per-class instance needs it before
 * {@code beforeAll}) and is keyed by the class, so a {@code @Nested} class gets one of its own. After the
 * class, the database is dropped and server-wide settings the class changed are put back.
 */
public final class PostgresExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PostgresExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        database(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        TestDatabase database = context.getStore(NAMESPACE).remove(context.getRequiredTestClass(), TestDatabase.class);
        if (database == null) {
            return;
        }
        try {
            database.server().restoreDefaults();
        } finally {
            database.drop();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == TestDatabase.class || type == PgServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        TestDatabase database = database(context);
        return parameter.getParameter().getType() == PgServer.class ? database.server() : database;
    }

    private static TestDatabase database(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent(classContext.getRequiredTestClass(),
                testClass -> TestDatabase.create(servesTls(testClass) ? TlsServer.get() : SharedServer.get(), testClass),
                TestDatabase.class);
    }

    /** Whether the class, or the nearest enclosing class that says, asks for the TLS server. */
    private static boolean servesTls(Class<?> testClass) {
        for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
            PostgresTest annotation = c.getAnnotation(PostgresTest.class);
            if (annotation != null) {
                return annotation.tls();
            }
        }
        return false;
    }
}
