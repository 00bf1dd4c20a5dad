package io.pgmux.jdbc.logical;

import java.io.InputStream;
import java.io.OutputStream;
import java.sql.Blob;
import java.sql.SQLException;

/**
 * pgjdbc's Blob, usable while the loan it was read in lasts (see {@link LeaseScope}); its streams too.
 * Afterwards every call fails on this client alone, instead of running on a server connection that may be
 * in another client's transaction.
 */
final class LeaseBoundBlob implements Blob {
    private static final String WHAT = "This Blob";

    private final LeaseScope scope;
    private final Blob blob;
    private boolean freed;

    LeaseBoundBlob(LeaseScope scope, Blob blob) {
        this.scope = scope;
        this.blob = blob;
    }

    private <T> T call(LeaseScope.Call<T> call) throws SQLException {
        if (freed) {
            throw LeaseScope.freed();
        }
        return scope.call(WHAT, call);
    }

    @Override
    public long length() throws SQLException {
        return call(blob::length);
    }

    @Override
    public byte[] getBytes(long pos, int length) throws SQLException {
        return call(() -> blob.getBytes(pos, length));
    }

    @Override
    public InputStream getBinaryStream() throws SQLException {
        return call(() -> LeaseBoundStreams.input(scope, WHAT, blob.getBinaryStream()));
    }

    @Override
    public InputStream getBinaryStream(long pos, long length) throws SQLException {
        return call(() -> LeaseBoundStreams.input(scope, WHAT, blob.getBinaryStream(pos, length)));
    }

    @Override
    public long position(byte[] pattern, long start) throws SQLException {
        return call(() -> blob.position(pattern, start));
    }

    @Override
    public long position(Blob pattern, long start) throws SQLException {
        return call(() -> blob.position(pattern, start));
    }

    @Override
    public int setBytes(long pos, byte[] bytes) throws SQLException {
        return call(() -> blob.setBytes(pos, bytes));
    }

    @Override
    public int setBytes(long pos, byte[] bytes, int offset, int len) throws SQLException {
        return call(() -> blob.setBytes(pos, bytes, offset, len));
    }

    @Override
    public OutputStream setBinaryStream(long pos) throws SQLException {
        return call(() -> LeaseBoundStreams.output(scope, WHAT, blob.setBinaryStream(pos)));
    }

    @Override
    public void truncate(long len) throws SQLException {
        call(() -> {
            blob.truncate(len);
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
                blob.free();
                return null;
            });
        }
    }

    @Override
    public String toString() {
        return blob.toString();
    }
}
