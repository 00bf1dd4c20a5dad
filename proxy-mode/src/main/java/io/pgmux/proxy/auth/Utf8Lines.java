package io.pgmux.proxy.auth;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The lines of a configuration file (pgbouncer.ini, auth_file, hba, ident), read as UTF-8. The JDK's readers say
 * only {@code Input length = 1} of a byte that is not UTF-8; this names the line and the byte, so that the
 * operator can find it. Lines end as {@link BufferedReader#readLine} ends them.
 */
public final class Utf8Lines {

    /** How the caller words an error at a line of its file. */
    @FunctionalInterface
    public interface LineError {
        IllegalArgumentException at(int lineNumber, String problem);
    }

    private Utf8Lines() {
    }

    /**
     * @throws IllegalArgumentException made by {@code error} for the first line holding a byte that is not UTF-8
     * @throws IOException when the file cannot be read
     */
    public static List<String> read(Path file, LineError error) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            throw notUtf8(bytes, in.position(), error);
        }
        out.flip();
        return new BufferedReader(new StringReader(out.toString())).lines().toList();
    }

    private static IllegalArgumentException notUtf8(byte[] bytes, int position, LineError error) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < position; i++) {
            boolean crlf = bytes[i] == '\r' && i + 1 < bytes.length && bytes[i + 1] == '\n';
            if (bytes[i] == '\n' || bytes[i] == '\r' && !crlf) {
                line++;
                lineStart = i + 1;
            }
        }
        return error.at(line, String.format("byte 0x%02X at column %d is not UTF-8 (the file must be UTF-8)",
                bytes[position] & 0xFF, position - lineStart + 1));
    }
}
