package io.pgmux.jdbc.logical;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.FilterReader;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.sql.SQLException;

/**
 * The streams of a large object, which read and write through pgjdbc's server connection: each call is
 * refused with an IOException (its cause the SQLException saying why) once the loan they were opened in
 * has ended (see {@link LeaseScope}). Closing one after that does nothing: the server closed its
 * descriptor with the transaction.
 */
final class LeaseBoundStreams {
    private LeaseBoundStreams() {
    }

    @FunctionalInterface
    private interface IoCall<T> {
        T run() throws IOException;
    }

    private static <T> T io(LeaseScope scope, String what, IoCall<T> call) throws IOException {
        LogicalConnection conn = scope.connection();
        conn.lock();
        try {
            if (!scope.lasts()) {
                SQLException ended = LeaseScope.ended(what, LeaseScope.OBJECT_NOT_IN_STATE);
                throw new IOException(ended.getMessage(), ended);
            }
            conn.used();
            return call.run();
        } finally {
            conn.unlock();
        }
    }

    private static void closeIfLasting(LeaseScope scope, String what, IoCall<Void> close) throws IOException {
        if (scope.lasts()) {
            io(scope, what, close);
        }
    }

    static InputStream input(LeaseScope scope, String what, InputStream in) {
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                return io(scope, what, in::read);
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return io(scope, what, () -> in.read(b, off, len));
            }

            @Override
            public long skip(long n) throws IOException {
                return io(scope, what, () -> in.skip(n));
            }

            @Override
            public int available() throws IOException {
                return io(scope, what, in::available);
            }

            @Override
            public void reset() throws IOException {
                io(scope, what, () -> {
                    in.reset();
                    return null;
                });
            }

            @Override
            public void close() throws IOException {
                closeIfLasting(scope, what, () -> {
                    in.close();
                    return null;
                });
            }
        };
    }

    static OutputStream output(LeaseScope scope, String what, OutputStream out) {
        return new FilterOutputStream(out) {
            @Override
            public void write(int b) throws IOException {
                io(scope, what, () -> {
                    out.write(b);
                    return null;
                });
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                io(scope, what, () -> {
                    out.write(b, off, len);
                    return null;
                });
            }

            @Override
            public void flush() throws IOException {
                io(scope, what, () -> {
                    out.flush();
                    return null;
                });
            }

            @Override
            public void close() throws IOException {
                closeIfLasting(scope, what, () -> {
                    out.close();
                    return null;
                });
            }
        };
    }

    static Reader reader(LeaseScope scope, String what, Reader in) {
        return new FilterReader(in) {
            @Override
            public int read() throws IOException {
                return io(scope, what, in::read);
            }

            @Override
            public int read(char[] cbuf, int off, int len) throws IOException {
                return io(scope, what, () -> in.read(cbuf, off, len));
            }

            @Override
            public long skip(long n) throws IOException {
                return io(scope, what, () -> in.skip(n));
            }

            @Override
            public boolean ready() throws IOException {
                return io(scope, what, in::ready);
            }

            @Override
            public void reset() throws IOException {
                io(scope, what, () -> {
                    in.reset();
                    return null;
                });
            }

            @Override
            public void close() throws IOException {
                closeIfLasting(scope, what, () -> {
                    in.close();
                    return null;
                });
            }
        };
    }

    static Writer writer(LeaseScope scope, String what, Writer out) {
        return new FilterWriter(out) {
            @Override
            public void write(int c) throws IOException {
                io(scope, what, () -> {
                    out.write(c);
                    return null;
                });
            }

            @Override
            public void write(char[] cbuf, int off, int len) throws IOException {
                io(scope, what, () -> {
                    out.write(cbuf, off, len);
                    return null;
                });
            }

            @Override
            public void write(String str, int off, int len) throws IOException {
                io(scope, what, () -> {
                    out.write(str, off, len);
                    return null;
                });
            }

            @Override
            public void flush() throws IOException {
                io(scope, what, () -> {
                    out.flush();
                    return null;
                });
            }

            @Override
            public void close() throws IOException {
                closeIfLasting(scope, what, () -> {
                    out.close();
                    return null;
                });
            }
        };
    }
}
