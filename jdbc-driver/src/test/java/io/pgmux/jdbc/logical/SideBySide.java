package io.pgmux.jdbc.logical;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.logical.ArgumentValues.Choice;
import io.pgmux.jdbc.logical.ArgumentValues.Value;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * Every method of one {@code java.sql} interface, called on an object of plain pgjdbc and on pgmux's, made by
 * the same fixture on a fresh connection of each: one dynamic test per method, which fails unless both give
 * the same {@link Outcome} (and leave their object in the same state, as the fixture's probe reads it). The
 * methods are read from the interface, so one added to it later gets a test by construction, and fails until
 * it has an argument for each of its parameters' types; where pgmux differs on purpose, the difference is
 * listed ({@link Difference}) and pinned, never skipped.
 */
final class SideBySide<T> {
    /** Where each side's connections come from. */
    interface Connections {
        Connection pgjdbc() throws SQLException;

        Connection pgmux() throws SQLException;

        /** Sets the data back as it was before a side ran. */
        void reset() throws SQLException;
    }

    /** Makes the object under test from a connection. */
    interface Fixture<T> {
        T open(Connection c) throws Exception;
    }

    /** Reads what a call left behind in the object, as text. */
    interface Probe<T> {
        String after(T subject) throws Exception;
    }

    /**
     * A difference from pgjdbc that pgmux keeps on purpose, listed in docs/jdbc.md: for each method whose
     * signature matches {@code methods}, pgmux's outcome must be pgjdbc's with every match of {@code pgjdbc}
     * replaced by {@code pgmux} (a regular expression and its replacement), so a listed difference is the only
     * one. A difference that no method shows any more fails the test until its entry is removed.
     */
    record Difference(String methods, String pgjdbc, String pgmux, String why) {
        boolean covers(Method m) {
            return signature(m).matches(methods);
        }
    }

    private final Class<T> iface;
    private final Connections connections;
    private final Fixture<T> fixture;
    private final Predicate<T> isPgmuxOwn;
    private Choice choice = (m, i) -> null;
    private Probe<T> probe = subject -> "";
    private List<Difference> differences = List.of();
    private final Set<Difference> shown = ConcurrentHashMap.newKeySet();

    /**
     * @param isPgmuxOwn what the pgmux side's object must be (pgmux's own class, not pgjdbc's), so the test
     *                   is known to call the code it means to
     */
    SideBySide(Class<T> iface, Connections connections, Fixture<T> fixture, Predicate<T> isPgmuxOwn) {
        this.iface = iface;
        this.connections = connections;
        this.fixture = fixture;
        this.isPgmuxOwn = isPgmuxOwn;
    }

    SideBySide<T> choosing(Choice choice) {
        this.choice = choice;
        return this;
    }

    SideBySide<T> probing(Probe<T> probe) {
        this.probe = probe;
        return this;
    }

    SideBySide<T> differing(List<Difference> differences) {
        this.differences = differences;
        return this;
    }

    static String signature(Method m) {
        return m.getName() + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(",", "(", ")"));
    }

    /** The interface's methods, one per signature, in name order. */
    private List<Method> methods() {
        Map<String, Method> bySignature = new TreeMap<>();
        for (Method m : iface.getMethods()) {
            if (!Modifier.isStatic(m.getModifiers())) {
                bySignature.putIfAbsent(signature(m), m);
            }
        }
        return new ArrayList<>(bySignature.values());
    }

    Stream<DynamicTest> tests() {
        List<DynamicTest> tests = new ArrayList<>();
        List<Method> methods = methods();
        for (Method m : methods) {
            tests.add(DynamicTest.dynamicTest(signature(m), () -> compare(m)));
        }
        tests.add(DynamicTest.dynamicTest("every listed difference of " + iface.getSimpleName() + " is still shown",
                () -> {
                    for (Difference d : differences) {
                        assertTrue(shown.contains(d), "no method shows " + d + " any more: remove it");
                    }
                }));
        return tests.stream();
    }

    private void compare(Method m) throws Exception {
        List<List<Value>> argumentLists = ArgumentValues.argumentLists(iface, m, choice);
        String pgjdbc = run(connections::pgjdbc, m, argumentLists, false);
        String pgmux = run(connections::pgmux, m, argumentLists, true);
        String expected = pgjdbc;
        for (Difference d : differences) {
            if (d.covers(m)) {
                String replaced = Pattern.compile(d.pgjdbc(), Pattern.MULTILINE).matcher(expected)
                        .replaceAll(d.pgmux());
                if (!replaced.equals(expected)) {
                    shown.add(d);
                }
                expected = replaced;
            }
        }
        assertEquals(expected, pgmux, iface.getSimpleName() + "." + signature(m) + " through pgmux, as pgjdbc"
                + (expected.equals(pgjdbc) ? "" : " with its listed differences"));
    }

    private interface Source {
        Connection get() throws SQLException;
    }

    private String run(Source source, Method m, List<List<Value>> argumentLists, boolean pgmux) throws Exception {
        try (Connection c = source.get()) {
            T subject = fixture.open(c);
            if (pgmux) {
                assertTrue(isPgmuxOwn.test(subject), "pgmux's fixture gave " + subject.getClass().getName());
            }
            StringBuilder out = new StringBuilder();
            for (List<Value> values : argumentLists) {
                Object[] args = ArgumentValues.make(values, c);
                out.append(Outcome.of(() -> invoke(m, subject, args))).append('\n');
            }
            String after;
            try {
                after = probe.after(subject);
            } catch (SQLException e) {
                after = Outcome.thrown(e);
            }
            out.append("then ").append(after);
            return out.toString();
        } finally {
            connections.reset();
        }
    }

    /** The driver's outcome; a call reflection itself refuses is a mistake of this test, not an outcome. */
    private static Object invoke(Method m, Object subject, Object[] args) throws Throwable {
        try {
            return m.invoke(subject, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        } catch (IllegalAccessException | IllegalArgumentException e) {
            throw new AssertionError("cannot call " + m + " with " + Arrays.toString(args), e);
        }
    }
}
