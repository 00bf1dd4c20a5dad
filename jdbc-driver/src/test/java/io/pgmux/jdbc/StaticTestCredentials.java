package io.pgmux.jdbc;

import io.pgmux.jdbc.credentials.Credentials;
import io.pgmux.jdbc.credentials.CredentialsProvider;

/** A provider named by class, as credentialsProviderClassName names one: its credentials are set by the test. */
public final class StaticTestCredentials implements CredentialsProvider {
    static volatile String username;
    static volatile String password;

    @Override
    public Credentials getCredentials() {
        return Credentials.of(username, password);
    }
}
