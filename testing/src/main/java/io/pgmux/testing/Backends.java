package io.pgmux.testing;

/**
 * Which client backends of the test database a count or a termination applies to; a {@code null} component
 * matches any value. The fixture's own connection is never included.
 */
public record Backends(String user, String applicationName) {

    public static Backends all() {
        return new Backends(null, null);
    }

    public static Backends ofUser(String user) {
        return new Backends(user, null);
    }

    public static Backends withApplicationName(String applicationName) {
        return new Backends(null, applicationName);
    }

    public Backends andUser(String user) {
        return new Backends(user, applicationName);
    }

    public Backends andApplicationName(String applicationName) {
        return new Backends(user, applicationName);
    }
}
