package io.pgmux.jdbc;

import io.pgmux.jdbc.credentials.CredentialsProvider;
import io.pgmux.jdbc.credentials.PasswordCommand;
import io.pgmux.jdbc.credentials.PasswordFile;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one credentials provider a pool's settings name, if any: an object given to the DataSource
 * ({@code credentialsProvider}), a class ({@code credentialsProviderClassName}), a file ({@code passwordFile},
 * with {@code usernameFile}) or a command ({@code passwordCommand}, with {@code passwordCommandCacheTime}).
 * Two of them, or a companion setting without its source, are refused rather than one silently ignored.
 */
final class CredentialSources {
    /** How long a password command may run when server_connect_timeout does not bound the login. */
    private static final Duration UNBOUNDED_LOGIN_COMMAND_TIMEOUT = Duration.ofMinutes(1);

    private CredentialSources() {
    }

    /**
     * @param given          the DataSource's credentialsProvider object, or null
     * @param values         the driver settings
     * @param connectTimeout server_connect_timeout: a password command taking longer is killed, since the pool
     *                       gives up on that login anyway
     * @return the provider, or null when the settings name none
     * @throws SQLException 22023 for two sources, a companion setting alone or a source that cannot be used
     */
    static CredentialsProvider provider(CredentialsProvider given, Map<DriverProperty, Object> values,
                                        Duration connectTimeout) throws SQLException {
        String className = text(values, DriverProperty.CREDENTIALS_PROVIDER_CLASS_NAME);
        String passwordFile = text(values, DriverProperty.PASSWORD_FILE);
        String command = text(values, DriverProperty.PASSWORD_COMMAND);
        List<String> named = new ArrayList<>();
        if (given != null) {
            named.add("credentialsProvider");
        }
        if (className != null) {
            named.add("credentialsProviderClassName");
        }
        if (passwordFile != null) {
            named.add("passwordFile");
        }
        if (command != null) {
            named.add("passwordCommand");
        }
        if (named.size() > 1) {
            throw refused(String.join(" and ", named) + " cannot be used together: each gives the credentials"
                    + " of every server login; keep one");
        }
        if (values.containsKey(DriverProperty.USERNAME_FILE) && passwordFile == null) {
            throw refused("usernameFile is read only with passwordFile; set passwordFile too");
        }
        if (values.containsKey(DriverProperty.PASSWORD_COMMAND_CACHE_TIME) && command == null) {
            throw refused("passwordCommandCacheTime applies only to passwordCommand; set passwordCommand too");
        }
        if (given != null) {
            return given;
        }
        if (className != null) {
            return instantiate(className);
        }
        if (passwordFile != null) {
            String usernameFile = text(values, DriverProperty.USERNAME_FILE);
            return new PasswordFile(path("passwordFile", passwordFile),
                    usernameFile == null ? null : path("usernameFile", usernameFile));
        }
        if (command != null) {
            Duration cache = (Duration) values.getOrDefault(DriverProperty.PASSWORD_COMMAND_CACHE_TIME, Duration.ZERO);
            Duration timeout = connectTimeout.isZero() ? UNBOUNDED_LOGIN_COMMAND_TIMEOUT : connectTimeout;
            return new PasswordCommand(command, cache, timeout);
        }
        return null;
    }

    /** Whether the class can be a credentials provider: checked when the setter is called, created at the start. */
    static void check(String className) {
        try {
            instantiable(className);
        } catch (SQLException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static CredentialsProvider instantiate(String className) throws SQLException {
        try {
            return instantiable(className).getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw refused("credentialsProviderClassName=" + className + ": cannot create an instance (" + cause + ")",
                    cause);
        }
    }

    private static Class<? extends CredentialsProvider> instantiable(String className) throws SQLException {
        Class<?> type;
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            type = Class.forName(className, false, loader != null ? loader : CredentialSources.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw refused("credentialsProviderClassName=" + className + ": no such class", e);
        }
        if (!CredentialsProvider.class.isAssignableFrom(type)) {
            throw refused("credentialsProviderClassName=" + className + ": not a "
                    + CredentialsProvider.class.getName());
        }
        try {
            type.getConstructor();
        } catch (NoSuchMethodException e) {
            throw refused("credentialsProviderClassName=" + className + ": needs a public no-argument constructor", e);
        }
        return type.asSubclass(CredentialsProvider.class);
    }

    private static Path path(String setting, String text) throws SQLException {
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw refused(setting + "=" + text + ": not a file name (" + e.getMessage() + ")", e);
        }
    }

    /** The setting's text; an empty one is refused, since it would name no file or command. */
    private static String text(Map<DriverProperty, Object> values, DriverProperty property) throws SQLException {
        Object value = values.get(property);
        if (value == null) {
            return null;
        }
        String text = (String) value;
        if (text.isBlank()) {
            throw refused(property.propertyName() + " is empty");
        }
        return text;
    }

    private static SQLException refused(String message) {
        return refused(message, null);
    }

    private static SQLException refused(String message, Throwable cause) {
        return new SQLDataException(message, ConnectionUrl.VALUE_ERROR, cause);
    }
}
