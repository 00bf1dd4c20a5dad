package io.pgmux.jdbc.credentials;

/**
 * A user name and password taken together, as HikariCP's {@code Credentials}; either may be null. Its
 * {@link #toString()} never shows the password.
 */
public final class Credentials {
    private final String username;
    private final String password;

    public Credentials(String username, String password) {
        this.username = username;
        this.password = password;
    }

    public static Credentials of(String username, String password) {
        return new Credentials(username, password);
    }

    public String getUsername() {
        return username;
    }

    public String getPassword() {
        return password;
    }

    @Override
    public String toString() {
        return "Credentials[username=" + username + ", password=" + (password == null ? "none" : "***") + "]";
    }
}
