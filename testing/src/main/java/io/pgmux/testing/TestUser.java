package io.pgmux.testing;

/** A login role created for one test class; dropped with its database. */
public record TestUser(String name, String password, PasswordMethod method) {
}
