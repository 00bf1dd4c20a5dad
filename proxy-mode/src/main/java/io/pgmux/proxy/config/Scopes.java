package io.pgmux.proxy.config;

import java.util.Set;

/** The places a {@link ProxySetting} may be written, short enough for its table to stay one line a key. */
final class Scopes {
    static final Set<Scope> NONE = Set.of();
    static final Set<Scope> G = Set.of(Scope.GLOBAL);
    static final Set<Scope> D = Set.of(Scope.DATABASE);
    static final Set<Scope> GD = Set.of(Scope.GLOBAL, Scope.DATABASE);
    static final Set<Scope> GU = Set.of(Scope.GLOBAL, Scope.USER);
    static final Set<Scope> DU = Set.of(Scope.DATABASE, Scope.USER);
    static final Set<Scope> GDU = Set.of(Scope.GLOBAL, Scope.DATABASE, Scope.USER);

    private Scopes() {
    }
}
