package io.pgmux.proxy.prepared;

import io.pgmux.proxy.protocol.Parse;
import java.util.Arrays;

/** What makes two named prepared statements interchangeable: the query text and the parameter types. */
public final class StatementKey {
    private final String query;
    private final int[] parameterTypes;
    private final int hash;

    public StatementKey(Parse parse) {
        this.query = parse.query();
        this.parameterTypes = parse.parameterTypes();
        this.hash = 31 * query.hashCode() + Arrays.hashCode(parameterTypes);
    }

    /** The Parse that prepares this statement on a server under {@code serverName}. */
    public Parse parseAs(String serverName) {
        return new Parse(serverName, query, parameterTypes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StatementKey other && other.hash == hash && other.query.equals(query)
                && Arrays.equals(other.parameterTypes, parameterTypes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** The query can hold literals: keep it out of logs. */
    @Override
    public String toString() {
        return "StatementKey(" + query.length() + " chars, " + parameterTypes.length + " parameters)";
    }
}
