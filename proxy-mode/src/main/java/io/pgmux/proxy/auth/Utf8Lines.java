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
 * The lines of a configuration file (pgbouncer.ini, auth_file, hba, ident), read as UTF-8 text. The JDK's readers
 * say only {@code Input length = 1} of a byte that is not UTF-8; this names the line and the byte, so that the
 * operator can find it. A control character (a NUL, an escape) is refused the same way: no value holds one, and an
 * error quoting the value would carry it into the log. Lines end as {@link BufferedReader#readLine} ends them.
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
     * @throws IllegalArgumentException made by {@code error} for the first line holding a byte that is not UTF-8 or
     *     a control character
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
        List<String> lines = new BufferedReader(new StringReader(out.toString())).lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            for (int column = 0; column < line.length(); column++) {
                char c = line.charAt(column);
                if (isControl(c)) {
                    throw error.at(i + 1, String.format("control character U+%04X at column %d (the file must be"
                            + " text)", (int) c, column + 1));
                }
            }
        }
        return lines;
    }

    /**
     * A character no configuration value holds, which an error quoting the value would carry into the log: C0 and
     * C1 controls but the tab, DEL, and the line and paragraph separators that some readers end a line at.
     */
    private static boolean isControl(char c) {
        return c < 0x20 && c != '\t' || c >= 0x7F && c <= 0x9F || c == '\u2028' || c == '\u2029';
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
