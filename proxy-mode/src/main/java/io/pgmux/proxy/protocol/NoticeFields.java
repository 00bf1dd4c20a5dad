package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The field list shared by ErrorResponse and NoticeResponse: (code byte, string) pairs ending with a 0 byte. */
final class NoticeFields {
    static final char SEVERITY_LOCALIZED = 'S';
    static final char SEVERITY = 'V';
    static final char CODE = 'C';
    static final char MESSAGE = 'M';
    static final char DETAIL = 'D';
    static final char HINT = 'H';

    private NoticeFields() {
    }

    static Map<Character, String> decode(ByteBuf body, String message) {
        Map<Character, String> fields = new LinkedHashMap<>();
        while (true) {
            byte code = Wire.readByte(body, message + " field code");
            if (code == 0) {
                Wire.expectEnd(body, message);
                return Collections.unmodifiableMap(fields);
            }
            fields.put((char) (code & 0xFF), Wire.readCString(body, message + " field"));
        }
    }

    static Map<Character, String> of(String severity, String sqlState, String message) {
        Map<Character, String> fields = new LinkedHashMap<>();
        fields.put(SEVERITY_LOCALIZED, severity);
        fields.put(SEVERITY, severity);
        fields.put(CODE, sqlState);
        fields.put(MESSAGE, message);
        return Collections.unmodifiableMap(fields);
    }

    static Map<Character, String> with(Map<Character, String> fields, char code, String value) {
        Map<Character, String> copy = new LinkedHashMap<>(fields);
        copy.put(code, value);
        return Collections.unmodifiableMap(copy);
    }

    static void encode(ByteBuf out, byte type, Map<Character, String> fields) {
        int lengthIndex = Wire.beginMessage(out, type);
        fields.forEach((code, value) -> {
            out.writeByte(code);
            Wire.writeCString(out, value);
        });
        out.writeByte(0);
        Wire.endMessage(out, lengthIndex);
    }

    /** Prefers the untranslated severity (9.6+) over the localized one. */
    static String severity(Map<Character, String> fields) {
        String severity = fields.get(SEVERITY);
        return severity != null ? severity : fields.get(SEVERITY_LOCALIZED);
    }
}
