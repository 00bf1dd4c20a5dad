package io.pgmux.proxy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Seeded client input for {@link ClientProtocolFuzzTest}: message-shaped bytes of every frontend type and of unknown
 * ones, bodies near what each type holds, with NUL inside strings, missing terminators, counts that promise more
 * than follows, and truncated, oversized, huge and negative lengths. {@link #framed()} tells whether every length
 * of the last case was true, so that the proxy owes an answer to what follows it.
 */
final class FrontendFuzz {
    /** Every frontend message type the protocol has; Terminate is drawn apart, rarely. */
    private static final byte[] TYPES = "QPBEDCSHFdcfp".getBytes(StandardCharsets.US_ASCII);
    private static final String[] SQL = {
        "SELECT 1", "SELECT 'fuzz'", "BEGIN", "COMMIT", "ROLLBACK", "SELECT 1/0", "SELECT $1::int",
        "SELECT $1::text, $2::bytea", "INSERT INTO fuzz_t VALUES (1)", "COPY fuzz_t FROM STDIN",
        "COPY fuzz_t TO STDOUT", "SAVEPOINT s", "RELEASE s", "SET application_name = 'fuzz'",
        "PREPARE fz AS SELECT 1", "DEALLOCATE ALL", "DISCARD ALL", "SELECT pg_backend_pid()", "", ";",
        "SELECT repeat('x', 70000)", "DECLARE c CURSOR FOR SELECT 1", "FETCH c", "CLOSE c", "SELECT 1; SELECT 2",
        "SHOW POOLS", "SHOW CLIENTS", "SHOW SERVERS", "SHOW STATS", "SHOW CONFIG", "SHOW DATABASES", "SHOW USERS",
        "SHOW LISTS", "SHOW MEM", "SHOW VERSION", "SHOW HELP", "SHOW STATE", "SHOW", "SHOW POOLS x",
        "SHOW 'pools'", "SHOW \"POOLS\"", "SHOW pools;", "SHOW POOLS; SHOW VERSION", "SHOW FDS", "SHOW SOCKETS",
        "SHOW TOTALS", "SHOW STATS_TOTALS", "SHOW DNS_HOSTS", "SHOW PEERS", "SHOW PEER_POOLS", "KILL x",
        "PAUSE x", "SET max_packet_size = 1"};
    /** Functions a FunctionCall may name: one that exists (abs(int4)) and OIDs that name none. */
    private static final int[] FUNCTION_OIDS = {1397, 0, 7, -1};

    private final Random random;
    private boolean framed;

    FrontendFuzz(long seed) {
        random = new Random(seed);
    }

    Random random() {
        return random;
    }

    /** Whether every length of the last case was true and nothing but whole messages was sent. */
    boolean framed() {
        return framed;
    }

    /** One to six typed messages, some malformed; {@code types} are the likelier ones. */
    byte[] messages(String types) {
        framed = true;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int count = 1 + random.nextInt(6);
        for (int i = 0; i < count; i++) {
            int pick = random.nextInt(100);
            if (pick < 4) {
                framed = false;
                out.writeBytes(bytes(random.nextInt(64)));
                continue;
            }
            byte type;
            if (pick < 12) {
                type = unknownType();
            } else if (pick < 14) {
                type = 'X';
            } else if (pick < 50 && !types.isEmpty()) {
                type = (byte) types.charAt(random.nextInt(types.length()));
            } else {
                type = TYPES[random.nextInt(TYPES.length)];
            }
            out.writeBytes(frame(type, body(type)));
        }
        return out.toByteArray();
    }

    /** A startup packet, SSLRequest, GSSENCRequest or CancelRequest, with bad lengths, codes and layouts. */
    byte[] startupPackets(String database) {
        framed = true;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            if (random.nextInt(10) == 0) {
                out.writeBytes(random.nextBoolean() ? bytes(random.nextInt(40)) : messages("p"));
                framed = false;
                continue;
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            int code = switch (random.nextInt(10)) {
                case 0 -> 80877103;
                case 1 -> 80877104;
                case 2 -> 80877102;
                case 3 -> 2 << 16;
                case 4 -> (3 << 16) | random.nextInt(5);
                case 5 -> random.nextInt();
                case 6 -> 4 << 16;
                default -> 3 << 16;
            };
            body.writeBytes(RawClient.int32(code));
            if (code == 80877102) {
                body.writeBytes(bytes(random.nextInt(4) == 0 ? random.nextInt(300) : 8));
            } else if (code >>> 16 == 3 || random.nextInt(3) == 0) {
                int parameters = random.nextInt(5);
                for (int p = 0; p < parameters; p++) {
                    body.writeBytes(text(pickOf("user", "database", "application_name", "options",
                            "client_encoding", "_pq_.x", "replication", "", "user\0x", "k" + random.nextInt(9))));
                    body.writeBytes(text(pickOf("app", database, "pgbouncer", "", "-c x=y", "-c a.b=\\ c",
                            "-c", "UTF8", "SQL_ASCII", "true", "v\0w",
                            new String(bytes(8), StandardCharsets.ISO_8859_1))));
                }
                if (random.nextInt(5) != 0) {
                    body.write(0);
                }
            }
            out.writeBytes(RawClient.int32(length(body.size() + 4, 10_000)));
            out.writeBytes(body.toByteArray());
        }
        return out.toByteArray();
    }

    private byte unknownType() {
        byte type;
        do {
            type = (byte) random.nextInt(256);
        } while (new String(TYPES, StandardCharsets.US_ASCII).indexOf(type) >= 0 || type == 'X');
        return type;
    }

    private byte[] frame(byte type, byte[] body) {
        return RawClient.concat(new byte[] {type}, RawClient.int32(length(body.length + 4, 0x3FFF_FFFE)), body);
    }

    /** Mostly the true length; else one shorter or longer than the body, huge, below 4 or negative. */
    private int length(int exact, int huge) {
        int pick = random.nextInt(100);
        if (pick < 85) {
            return exact;
        }
        framed = false;
        return switch (pick) {
            case 85, 86, 87 -> Math.max(0, exact - 1 - random.nextInt(Math.max(1, exact)));
            case 88, 89, 90 -> exact + 1 + random.nextInt(200);
            case 91, 92 -> huge - random.nextInt(3);
            case 93, 94 -> huge + 1 + random.nextInt(1000);
            case 95, 96 -> Integer.MAX_VALUE - random.nextInt(3);
            case 97 -> random.nextInt(4);
            default -> -1 - random.nextInt(Integer.MAX_VALUE);
        };
    }

    private byte[] body(byte type) {
        if (random.nextInt(12) == 0) {
            return bytes(random.nextInt(48));
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        switch (type) {
            case 'Q' -> b.writeBytes(text(sql()));
            case 'P' -> {
                b.writeBytes(text(name()));
                b.writeBytes(text(sql()));
                int count = count();
                b.writeBytes(int16(count));
                for (int i = 0; i < Math.min(count, 4) + (random.nextInt(6) == 0 ? 1 : 0); i++) {
                    b.writeBytes(RawClient.int32(pickOf(0, 23, 25, 17, random.nextInt())));
                }
            }
            case 'B' -> {
                b.writeBytes(text(random.nextBoolean() ? "" : name()));
                b.writeBytes(text(name()));
                formats(b);
                int values = count();
                b.writeBytes(int16(values));
                for (int i = 0; i < Math.min(values, 4) + (random.nextInt(6) == 0 ? 1 : 0); i++) {
                    value(b);
                }
                formats(b);
            }
            case 'E' -> {
                b.writeBytes(text(random.nextInt(4) == 0 ? name() : ""));
                b.writeBytes(RawClient.int32(pickOf(0, 1, 2, -1, random.nextInt())));
            }
            case 'D', 'C' -> {
                b.write(pickOf((int) 'S', (int) 'P', random.nextInt(256)));
                b.writeBytes(text(random.nextBoolean() ? "" : name()));
            }
            case 'F' -> {
                b.writeBytes(RawClient.int32(FUNCTION_OIDS[random.nextInt(FUNCTION_OIDS.length)]));
                formats(b);
                int args = count();
                b.writeBytes(int16(args));
                for (int i = 0; i < Math.min(args, 4); i++) {
                    value(b);
                }
                b.writeBytes(int16(pickOf(0, 1, 2, -1)));
            }
            case 'd' -> b.writeBytes(random.nextBoolean() ? "1\n".getBytes(StandardCharsets.US_ASCII)
                    : bytes(random.nextInt(100)));
            case 'f' -> b.writeBytes(text(pickOf("fuzz", "", "a\0b")));
            case 'p' -> password(b);
            default -> {
                if (random.nextInt(4) == 0) {
                    b.writeBytes(bytes(1 + random.nextInt(8)));
                }
            }
        }
        return b.toByteArray();
    }

    /** A cleartext or md5 password, or a SASL message with the mechanism and lengths near right. */
    private void password(ByteArrayOutputStream b) {
        switch (random.nextInt(4)) {
            case 0 -> b.writeBytes(text(pickOf("app-secret", "md5" + "0".repeat(32), "", "x\0y")));
            case 1 -> {
                b.writeBytes(text(pickOf("SCRAM-SHA-256", "SCRAM-SHA-256-PLUS", "PLAIN", "")));
                byte[] first = pickOf("n,,n=,r=abc", "y,,n=,r=abc", "p=x,,n=,r=", "n,,", "", "n,a=\0,n=,r=x")
                        .getBytes(StandardCharsets.UTF_8);
                b.writeBytes(RawClient.int32(pickOf(first.length, -1, first.length + 5, 0, Integer.MAX_VALUE)));
                b.writeBytes(first);
            }
            case 2 -> b.writeBytes(pickOf("c=biws,r=abc,p=AAAA", "c=,r=", "", "c=biws,r=\0,p=")
                    .getBytes(StandardCharsets.UTF_8));
            default -> b.writeBytes(bytes(random.nextInt(40)));
        }
    }

    private void formats(ByteArrayOutputStream b) {
        int count = pickOf(0, 1, 2, -1, 300);
        b.writeBytes(int16(count));
        for (int i = 0; i < Math.min(count, 3); i++) {
            b.writeBytes(int16(pickOf(0, 1, 2, -1)));
        }
    }

    private void value(ByteArrayOutputStream b) {
        byte[] value = random.nextBoolean() ? "42".getBytes(StandardCharsets.US_ASCII) : bytes(random.nextInt(9));
        int length = pickOf(value.length, value.length, -1, -2, value.length + 3, Integer.MAX_VALUE);
        b.writeBytes(RawClient.int32(length));
        b.writeBytes(value);
    }

    private int count() {
        return pickOf(0, 1, 2, 1, -1, 3, 0xFFFF, 200);
    }

    private String sql() {
        String sql = SQL[random.nextInt(SQL.length)];
        return switch (random.nextInt(8)) {
            case 0 -> sql.substring(0, random.nextInt(sql.length() + 1)) + "\0" + sql;
            case 1 -> sql + new String(bytes(4), StandardCharsets.ISO_8859_1);
            default -> sql;
        };
    }

    private String name() {
        return pickOf("s1", "fz", "", "PGMUX_1", "n" + random.nextInt(4), "x".repeat(100), "a\0b", "ü");
    }

    /** A C string; one in eight has no terminator, so the next field or message runs into it. */
    private byte[] text(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        return random.nextInt(8) == 0 ? bytes : RawClient.concat(bytes, new byte[] {0});
    }

    private static byte[] int16(int value) {
        return new byte[] {(byte) (value >>> 8), (byte) value};
    }

    private byte[] bytes(int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    @SafeVarargs
    private <T> T pickOf(T... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
