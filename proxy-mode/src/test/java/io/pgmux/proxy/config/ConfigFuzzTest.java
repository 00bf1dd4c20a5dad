package io.pgmux.proxy.config;

import io.pgmux.proxy.ProxyConfigLoader;
import io.pgmux.proxy.auth.HbaFile;
import io.pgmux.proxy.auth.IdentMap;
import io.pgmux.proxy.auth.UserList;
import java.io.ByteArrayOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random bytes in every configuration file: pgbouncer.ini (and what it includes), auth_file, the hba and ident
 * files. Each case is a valid file mutated by a seeded {@link Random} — random bytes, truncations, random lines of
 * the files' own tokens, huge lines, NULs, bytes that are not UTF-8 — and loaded as pgmux loads it. What may come
 * out is the file loaded, or one clear error: an IllegalArgumentException (an UncheckedIOException for a file it names
 * that cannot be read) whose single line names the file (and the line, for a line's fault); never another exception,
 * a message without its file, or a hang.
 */
class ConfigFuzzTest {
    private static final int CASES = 400;
    private static final long[] SEEDS = {29L, 0x5eedL, 20261203L};

    private static final String INI = """
            ; pgmux
            [databases]
            app = host=127.0.0.1 port=5432 dbname=app user=svc password='fuzz''secret' pool_size=5
            * = host=127.0.0.1 auth_user=svc
            [users]
            bob = pool_mode=transaction max_user_connections=3
            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = 0
            auth_type = md5
            auth_file = userlist.txt
            pool_mode = transaction
            default_pool_size = 20
            stats_period = 60
            max_packet_size = 2147483647
            server_lifetime = 3600
            ignore_startup_parameters = extra_float_digits
            %include extra.ini
            """;
    private static final String EXTRA_INI = "max_client_conn = 100\nquery_wait_timeout = 120\n";
    private static final String USERLIST = """
            ;; users
            "svc" "md5b4f8d6a5a4a0c5e4f1b2c3d4e5f6a7b8"
            "bob" "SCRAM-SHA-256$4096:c2FsdHNhbHQ=$c3RvcmVka2V5c3RvcmVka2V5c3RvcmVka2V5c3RvcmU=:c2VydmVya2V5c2VydmVya2V5c2VydmVya2V5c2Vydg=="
            "al""ice" "pass word"
            """;
    private static final String HBA = """
            # TYPE DATABASE USER ADDRESS METHOD
            local all all peer map=os
            host all bob 127.0.0.1/32 scram-sha-256
            host "app",other all 10.0.0.0 255.0.0.0 md5
            hostssl all all ::1/128 cert map=certs
            host all all ::ffff:127.0.0.1/128 trust
            hostnossl all @names.txt all reject
            """;
    private static final String IDENT = "os root svc\ncerts alice.example alice\n";

    /** The files' own words, and what breaks parsers: quotes, brackets, directives, numbers out of range. */
    private static final List<String> TOKENS = new ArrayList<>(List.of("[", "]", "[pgbouncer]", "[databases]",
            "[users]", "[peers]", "[pgbouncr]", "[]", "=", " = ", "'", "''", "\"", "\"\"", "%include", "%include extra.ini",
            "%include missing.ini", "%include pgbouncer.ini", "%", "#", ";", "\0", "\r", "\t", " ", ",", "*", "@", "@names.txt",
            "/", "/33", "/129", "/-1", "host=", "port=", "password='", "dbname=", "user=", "map=", "postgresql://u:s@h/db",
            "-1", "0", "1", "2147483647", "2147483648", "-2147483649", "99999999999999999999", "1e309", "NaN", "0x10",
            "0.5", "-0", "1s", "5ms", "3600000000000000000", "\u00ff", "\u00e9", "\ufffd", "\u2028", "all", "sameuser",
            "samerole", "+group", "local", "host", "hostssl", "md5", "trust", "reject", "peer", "cert", "ldap",
            "scram-sha-256", "127.0.0.1", "::1", "::ffff:1.2.3.4", "999.1.1.1", "fe80::1%eth0", "[::1]", "SCRAM-SHA-256$",
            "md5", "\\", "\\0", "$1", "(", "{", "a".repeat(300)));

    static {
        for (ProxySetting setting : ProxySetting.values()) {
            TOKENS.add(setting.configName());
            TOKENS.add(setting.configName() + " = ");
            TOKENS.add(setting.configName() + "=");
        }
    }

    @TempDir
    Path dir;

    @Test
    void randomBytesInThePgbouncerIniGiveOnlyErrorsNamingTheFile() {
        fuzz(INI, file -> {
            Files.writeString(dir.resolve("extra.ini"), EXTRA_INI);
            Files.writeString(dir.resolve("userlist.txt"), "\"svc\" \"pw\"\n");
            // %include is taken from the working directory, as PgBouncer's: the cases include by absolute name
            byte[] bytes = Files.readAllBytes(file);
            Files.write(file, new String(bytes, StandardCharsets.ISO_8859_1)
                    .replace("%include ", "%include " + dir + "/").getBytes(StandardCharsets.ISO_8859_1));
            ProxyConfigLoader.load(file);
            ProxyConfigLoader.processSettings(IniFile.load(file), dir);
        }, "pgbouncer.ini");
    }

    @Test
    void randomBytesInTheAuthFileGiveOnlyErrorsNamingTheAuthFileAndLine() {
        fuzz(USERLIST, UserList::load, "userlist.txt");
    }

    @Test
    void randomBytesInTheHbaAndIdentFilesGiveOnlyErrorsNamingTheFileAndLine() {
        fuzz(HBA, file -> {
            Files.writeString(dir.resolve("names.txt"), "bob, alice\n# comment\n\"carol\"\n");
            HbaFile.load(file);
        }, "hba.conf");
        fuzz(IDENT, IdentMap::load, "ident.conf");
    }

    @FunctionalInterface
    private interface Load {
        void load(Path file) throws Exception;
    }

    private void fuzz(String valid, Load load, String name) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            Path file = dir.resolve(name);
            Pattern clear = Pattern.compile("^(auth_file )?" + Pattern.quote(dir.toString()) + "/[^ ]+( line \\d+)?: .+");
            for (long seed : SEEDS) {
                Random random = new Random(seed);
                for (int i = 0; i < CASES; i++) {
                    byte[] bytes = mutate(valid.getBytes(StandardCharsets.UTF_8), random);
                    Files.write(file, bytes);
                    try {
                        load.load(file);
                    } catch (IllegalArgumentException | UncheckedIOException e) {
                        String message = e.getMessage();
                        if (message == null || message.contains("\n") || !clear.matcher(message).matches()) {
                            fail("seed " + seed + " case " + i + ": an error that does not name " + name + " in one"
                                    + " line: " + e + "\n--- input:\n" + printable(bytes), e);
                        }
                    } catch (Exception | Error e) {
                        fail("seed " + seed + " case " + i + ": " + e + "\n--- input:\n" + printable(bytes), e);
                    }
                }
            }
        });
    }

    /** One to four of: random bytes, a truncation, a random line, a huge line, NULs, flipped bytes, a copied line. */
    private static byte[] mutate(byte[] valid, Random random) {
        byte[] bytes = valid;
        int rounds = 1 + random.nextInt(4);
        for (int r = 0; r < rounds; r++) {
            bytes = switch (random.nextInt(7)) {
                case 0 -> randomBytes(random, random.nextInt(2000));
                case 1 -> java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
                case 2 -> insertLine(bytes, random, randomLine(random).getBytes(StandardCharsets.UTF_8));
                case 3 -> insertLine(bytes, random, hugeLine(random));
                case 4 -> sprinkle(bytes, random, (byte) 0);
                case 5 -> sprinkle(bytes, random, (byte) random.nextInt(256));
                default -> insertLine(bytes, random, randomExistingLine(bytes, random));
            };
        }
        return bytes;
    }

    private static byte[] randomBytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static String randomLine(Random random) {
        StringBuilder line = new StringBuilder();
        int words = 1 + random.nextInt(6);
        for (int i = 0; i < words; i++) {
            line.append(TOKENS.get(random.nextInt(TOKENS.size())));
            if (random.nextBoolean()) {
                line.append(' ');
            }
        }
        return line.toString();
    }

    private static byte[] hugeLine(Random random) {
        int length = 64 * 1024 + random.nextInt(16 * 1024);
        if (random.nextBoolean()) {
            return randomBytes(random, length);
        }
        String token = TOKENS.get(random.nextInt(TOKENS.size()));
        return ("listen_port = " + token.repeat(Math.max(1, length / Math.max(1, token.length()))))
                .getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] sprinkle(byte[] bytes, Random random, byte value) {
        byte[] copy = bytes.clone();
        int count = copy.length == 0 ? 0 : 1 + random.nextInt(8);
        for (int i = 0; i < count; i++) {
            copy[random.nextInt(copy.length)] = value;
        }
        return copy;
    }

    private static byte[] randomExistingLine(byte[] bytes, Random random) {
        String[] lines = new String(bytes, StandardCharsets.ISO_8859_1).split("\n");
        return lines.length == 0 ? new byte[0] : lines[random.nextInt(lines.length)].getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] insertLine(byte[] bytes, Random random, byte[] line) {
        List<Integer> starts = new ArrayList<>(List.of(0));
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                starts.add(i + 1);
            }
        }
        int at = starts.get(random.nextInt(starts.size()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bytes, 0, at);
        out.writeBytes(line);
        out.write('\n');
        out.write(bytes, at, bytes.length - at);
        return out.toByteArray();
    }

    private static String printable(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        return text.length() > 2000 ? text.substring(0, 2000) + "… (" + text.length() + " bytes)" : text;
    }
}
