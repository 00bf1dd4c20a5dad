package io.pgmux.proxy.parameters;

import io.netty.buffer.ByteBuf;
import io.pgmux.proxy.protocol.Sync;
import io.pgmux.proxy.protocol.UnnamedStatementRun;

/**
 * The batch that gives a server connection one client's settings: the {@link PoolerPrelude}, then one
 * {@code set_config(name, value, false)} per setting with names and values as Bind parameters (a null value
 * RESETs), in one statement, then Sync. Nothing the client chose is ever in SQL text, so no client_encoding,
 * standard_conforming_strings or backslash_quote left by the previous client changes how it is read; parameters
 * are converted from UTF-8, which the prelude sets first; and the whole batch is one transaction, applied whole or
 * not at all.
 */
final class SettingsReplay implements PreludedRequest {
    private final UnnamedStatementRun prelude;
    private final UnnamedStatementRun settings;

    /** {@code namesAndValues}: name, value, name, value…, applied in that order. */
    SettingsReplay(String[] namesAndValues, int majorVersion) {
        this.prelude = PoolerPrelude.run(majorVersion);
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 1; i < namesAndValues.length; i += 2) {
            if (i > 1) {
                sql.append(", ");
            }
            sql.append("pg_catalog.set_config($").append(i).append("::pg_catalog.text, $").append(i + 1)
                    .append("::pg_catalog.text, false)");
        }
        this.settings = new UnnamedStatementRun(sql.toString(), namesAndValues);
    }

    @Override
    public void encode(ByteBuf out) {
        prelude.encode(out);
        settings.encode(out);
        Sync.INSTANCE.encode(out);
    }

    @Override
    public String toString() {
        return "SettingsReplay(" + settings + ")";
    }
}
