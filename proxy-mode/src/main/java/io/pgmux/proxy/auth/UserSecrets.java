package io.pgmux.proxy.auth;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Where the pooler looks up a user's stored secret: an auth file, or a map given through the builder API. */
public interface UserSecrets {

    /**
     * The user's secret, or empty when the user is unknown. Return the same instance while the secret is
     * unchanged: SCRAM passthrough keeps the keys of a client's login on the {@link ScramSecret} itself.
     */
    Optional<Secret> find(String user);

    /**
     * An in-memory table from user names to stored secrets in any of the forms {@link Secret#parse} accepts.
     *
     * @throws IllegalArgumentException naming the user whose SCRAM verifier is malformed
     */
    static UserSecrets of(Map<String, String> secretsByUser) {
        Map<String, Secret> secrets = new LinkedHashMap<>();
        secretsByUser.forEach((user, stored) -> {
            try {
                secrets.put(user, Secret.parse(stored));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("user \"" + user + "\": " + e.getMessage(), e);
            }
        });
        Map<String, Secret> table = Map.copyOf(secrets);
        return user -> Optional.ofNullable(table.get(user));
    }
}
