package io.pgmux.jdbc.logical;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.sql.Clob;
import java.sql.NClob;
import java.sql.SQLException;

/**
 * pgjdbc's Clob (or NClob), usable while the loan it was read in lasts (see {@link LeaseScope}); its
 * streams too. Afterwards every call fails on this client alone.
 */
final class LeaseBoundClob implements NClob {
    private static final String WHAT = "This Clob";

    private final LeaseScope scope;
    private final Clob clob;
    private boolean freed;

    LeaseBoundClob(LeaseScope scope, Clob clob) {
        this.scope = scope;
        this.clob = clob;
    }

    private <T> T call(LeaseScope.Call<T> call) throws SQLException {
        if (freed) {
            throw LeaseScope.freed();
        }
        return scope.call(WHAT, call);
    }

    @Override
    public long length() throws SQLException {
        return call(clob::length);
    }

    @Override
    public String getSubString(long pos, int length) throws SQLException {
        return call(() -> clob.getSubString(pos, length));
    }

    @Override
    public Reader getCharacterStream() throws SQLException {
        return call(() -> LeaseBoundStreams.reader(scope, WHAT, clob.getCharacterStream()));
    }

    @Override
    public Reader getCharacterStream(long pos, long length) throws SQLException {
        return call(() -> LeaseBoundStreams.reader(scope, WHAT, clob.getCharacterStream(pos, length)));
    }

    @Override
    public InputStream getAsciiStream() throws SQLException {
        return call(() -> LeaseBoundStreams.input(scope, WHAT, clob.getAsciiStream()));
    }

    @Override
    public long position(String searchstr, long start) throws SQLException {
        return call(() -> clob.position(searchstr, start));
    }

    @Override
    public long position(Clob searchstr, long start) throws SQLException {
        return call(() -> clob.position(searchstr, start));
    }

    @Override
    public int setString(long pos, String str) throws SQLException {
        return call(() -> clob.setString(pos, str));
    }

    @Override
    public int setString(long pos, String str, int offset, int len) throws SQLException {
        return call(() -> clob.setString(pos, str, offset, len));
    }

    @Override
    public OutputStream setAsciiStream(long pos) throws SQLException {
        return call(() -> LeaseBoundStreams.output(scope, WHAT, clob.setAsciiStream(pos)));
    }

    @Override
    public Writer setCharacterStream(long pos) throws SQLException {
        return call(() -> LeaseBoundStreams.writer(scope, WHAT, clob.setCharacterStream(pos)));
    }

    @Override
    public void truncate(long len) throws SQLException {
        call(() -> {
            clob.truncate(len);
            return null;
        });
    }

    /** Closes pgjdbc's descriptors while the loan lasts; after it, the server has closed them with the transaction. */
    @Override
    public void free() throws SQLException {
        if (freed) {
            return;
        }
        freed = true;
        if (scope.lasts()) {
            scope.call(WHAT, () -> {
                clob.free();
                return null;
            });
        }
    }

    @Override
    public String toString() {
        return clob.toString();
    }
}
