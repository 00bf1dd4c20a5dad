package io.pgmux.jdbc;

import io.pgmux.core.config.ConfigKey;
import io.pgmux.core.config.UnknownSetting;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Locale;
import java.util.Properties;

/**
 * Configures a {@link PgMuxDataSource} from HikariCP-style properties, as {@code HikariConfig(Properties)}
 * does: {@code dataSource.<name>} keys become pgjdbc properties, every other key names a bean property.
 * Pool settings are also accepted under their pgmux and PgBouncer names, with those names' units.
 */
final class PropertiesBinder {
    private static final String DATA_SOURCE_PREFIX = "dataSource.";

    private PropertiesBinder() {
    }

    /** Reads a properties file from the file system, or failing that from the class path. */
    static Properties load(String fileName) {
        if (fileName == null) {
            throw new IllegalArgumentException("property file name is null");
        }
        Properties properties = new Properties();
        try (InputStream in = open(fileName)) {
            if (in == null) {
                throw new IllegalArgumentException("Cannot find property file: " + fileName
                        + " (looked in the file system and on the class path)");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot read property file " + fileName + ": " + e.getMessage(), e);
        }
        return properties;
    }

    private static InputStream open(String fileName) throws IOException {
        try {
            Path path = Path.of(fileName);
            if (Files.isRegularFile(path)) {
                return Files.newInputStream(path);
            }
        } catch (InvalidPathException e) {
            // Not a file name on this platform; it may still name a class path resource.
        }
        String resource = fileName.startsWith("/") ? fileName.substring(1) : fileName;
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        InputStream in = loader == null ? null : loader.getResourceAsStream(resource);
        return in != null ? in : PropertiesBinder.class.getClassLoader().getResourceAsStream(resource);
    }

    /**
     * Applies every property; values may be text or, as HikariCP allows, objects of the property's type.
     *
     * @throws IllegalArgumentException naming the property when it is unknown or its value invalid
     */
    static void apply(PgMuxDataSource target, Properties properties) {
        for (Object key : Collections.list(properties.propertyNames())) {
            String name = (String) key;
            Object value = properties.get(name);
            set(target, name, value != null ? value : properties.getProperty(name));
        }
    }

    private static void set(PgMuxDataSource target, String name, Object value) {
        if (name.startsWith(DATA_SOURCE_PREFIX)) {
            target.addDataSourceProperty(name.substring(DATA_SOURCE_PREFIX.length()), value);
            return;
        }
        if (ConfigKey.lookup(name) != null) {
            target.setPoolSetting(name, String.valueOf(value));
            return;
        }
        Method setter = setter(name);
        DriverProperty property = DriverProperty.lookup(name);
        // A duration written as text may carry a unit (10m), which the setter's long could not take.
        if (property != null && (setter == null || property.isDuration() && value instanceof String)) {
            target.setDriverSetting(name, String.valueOf(value));
            return;
        }
        if (setter == null) {
            throw new IllegalArgumentException(UnknownSetting.message("PgMuxDataSource property", name,
                    ConfigKey.nearestName(name)));
        }
        try {
            setter.invoke(target, convert(name, setter.getParameterTypes()[0], value));
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalArgumentException("Property " + name + ": " + cause.getMessage(), cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("setter of " + name + " is not accessible", e);
        }
    }

    /** The public one-argument setter of a bean property, matched as HikariCP does (first letter capitalised). */
    private static Method setter(String property) {
        if (property.isEmpty()) {
            return null;
        }
        String name = "set" + property.substring(0, 1).toUpperCase(Locale.ENGLISH) + property.substring(1);
        for (Method m : PgMuxDataSource.class.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 1 && !Modifier.isStatic(m.getModifiers())) {
                return m;
            }
        }
        return null;
    }

    private static Object convert(String name, Class<?> type, Object value) {
        if (type.isInstance(value)) {
            return value;
        }
        String text = String.valueOf(value).trim();
        try {
            if (type == String.class) {
                return String.valueOf(value);
            }
            if (type == int.class || type == Integer.class) {
                return Integer.parseInt(text);
            }
            if (type == long.class || type == Long.class) {
                return Long.parseLong(text);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + value + ": must be a whole number");
        }
        if (type == boolean.class || type == Boolean.class) {
            if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
                return Boolean.parseBoolean(text);
            }
            throw new IllegalArgumentException(name + "=" + value + ": must be true or false");
        }
        return instantiate(name, type, text);
    }

    /** A class name given for an object-valued property (metricsTrackerFactory, say): its no-argument instance. */
    private static Object instantiate(String name, Class<?> type, String className) {
        try {
            Object instance = Class.forName(className, true, classLoader()).getDeclaredConstructor().newInstance();
            if (!type.isInstance(instance)) {
                throw new IllegalArgumentException(name + "=" + className + ": not a " + type.getName());
            }
            return instance;
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(name + "=" + className + ": cannot create an instance ("
                    + e + ")", e);
        }
    }

    private static ClassLoader classLoader() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loader != null ? loader : PropertiesBinder.class.getClassLoader();
    }
}
