package io.pgmux.proxy.auth;

import io.netty.util.NetUtil;
import io.pgmux.proxy.auth.HbaTokens.Word;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * PgBouncer's subset of pg_hba.conf (auth_hba_file): lines {@code local}, {@code host}, {@code hostssl},
 * {@code hostnossl}; databases {@code all}, {@code sameuser}, {@code replication}, names, {@code @file}; users
 * {@code all}, names, {@code @file}; addresses {@code all}, IPv4 and IPv6 with a {@code /bits} suffix or a mask
 * field; methods trust, reject, md5, password, scram-sha-256, cert, peer; option {@code map=} for cert and
 * peer. The first line that matches a client decides its method; when none does, the client is refused.
 *
 * <p>Unlike PgBouncer, which logs a line it cannot parse and skips it, a malformed or unsupported line fails the
 * load naming file and line: a skipped {@code reject} line would let clients in.
 */
public final class HbaFile {
    private static final Pattern MAP_OPTION = Pattern.compile("map=(.+)");

    /**
     * What a matching line says: the method, and the ident map for cert and peer (null for none); {@link #NO_MATCH}
     * when no line matches.
     */
    public record Rule(AuthType method, String map) {
        /** No line matches the client: PgBouncer refuses it with "no authentication method is found". */
        public static final Rule NO_MATCH = new Rule(null, null);
    }

    private enum Type { LOCAL, HOST, HOSTSSL, HOSTNOSSL }

    /**
     * A set of names: {@code all}, a list, and for databases {@code sameuser} and {@code replication}, which only
     * physical replication connections match, and they only it.
     */
    private record Names(boolean all, boolean sameUser, boolean replication, Set<String> names) {
        boolean matches(String name, String user) {
            return all || sameUser && name.equals(user) || names.contains(name);
        }
    }

    /** {@code address} null for {@code all} and for local lines. */
    private record Line(Type type, Names databases, Names users, byte[] address, byte[] mask, Rule rule) {
        boolean matches(InetAddress client, boolean tls, String database, String user, boolean physical) {
            if (client == null) {
                if (type != Type.LOCAL) {
                    return false;
                }
            } else if (type == Type.LOCAL || type == Type.HOSTSSL && !tls || type == Type.HOSTNOSSL && tls
                    || address != null && !inNetwork(client.getAddress())) {
                return false;
            }
            return (physical ? databases.replication : databases.matches(database, user))
                    && users.matches(user, null);
        }

        private boolean inNetwork(byte[] client) {
            if (client.length != address.length) {
                return false;
            }
            for (int i = 0; i < client.length; i++) {
                if ((client[i] & mask[i]) != address[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Line> lines;

    private HbaFile(List<Line> lines) {
        this.lines = List.copyOf(lines);
    }

    /**
     * Reads an hba file; {@code @file} names are relative to its directory.
     *
     * @throws HbaFormatException naming file and line of what pgmux cannot use
     * @throws UncheckedIOException when a file cannot be read
     */
    public static HbaFile load(Path file) {
        List<Line> lines = new ArrayList<>();
        List<String> text = readLines(file);
        for (int i = 0; i < text.size(); i++) {
            try {
                List<List<Word>> fields = HbaTokens.fields(text.get(i));
                if (!fields.isEmpty()) {
                    lines.add(parseLine(fields, file));
                }
            } catch (HbaFormatException e) {
                throw e;
            } catch (IllegalArgumentException e) {
                throw new HbaFormatException(file, i + 1, e.getMessage());
            } catch (UncheckedIOException e) {
                // an @file that cannot be read: said at the line that names it
                throw new HbaFormatException(file, i + 1, e.getMessage() + ": " + reason(e.getCause()));
            }
        }
        return new HbaFile(lines);
    }

    /**
     * The rule of the first line matching the client, or {@link Rule#NO_MATCH}.
     *
     * @param client the client's address; null for a Unix socket
     */
    public Rule evaluate(InetAddress client, boolean tls, String database, String user) {
        return evaluate(client, tls, database, user, false);
    }

    /**
     * As {@link #evaluate(InetAddress, boolean, String, String)}; a physical replication connection ({@code
     * physical}) matches only the lines whose database is {@code replication}, as in PostgreSQL and PgBouncer.
     */
    public Rule evaluate(InetAddress client, boolean tls, String database, String user, boolean physical) {
        for (Line line : lines) {
            if (line.matches(client, tls, database, user, physical)) {
                return line.rule;
            }
        }
        return Rule.NO_MATCH;
    }

    private static Line parseLine(List<List<Word>> fields, Path file) {
        Type type = switch (single(fields.get(0), "connection type")) {
            case "local" -> Type.LOCAL;
            case "host" -> Type.HOST;
            case "hostssl" -> Type.HOSTSSL;
            case "hostnossl" -> Type.HOSTNOSSL;
            default -> throw new IllegalArgumentException("unknown connection type \"" + fields.get(0).get(0).text()
                    + "\" (local, host, hostssl or hostnossl)");
        };
        int next = 1;
        Names databases = names(field(fields, next++, "database"), true, file);
        Names users = names(field(fields, next++, "user"), false, file);
        byte[] address = null;
        byte[] mask = null;
        if (type != Type.LOCAL) {
            String written = single(field(fields, next++, "address"), "address");
            if (!written.equals("all")) {
                int slash = written.indexOf('/');
                address = numericAddress(slash < 0 ? written : written.substring(0, slash));
                if (slash >= 0) {
                    mask = prefixMask(written.substring(slash + 1), address.length);
                } else {
                    mask = numericAddress(single(field(fields, next++, "mask"), "mask"));
                    if (mask.length != address.length) {
                        throw new IllegalArgumentException("the mask is not of the address's family");
                    }
                }
                for (int i = 0; i < address.length; i++) {
                    address[i] &= mask[i];
                }
            }
        }
        String methodName = single(field(fields, next++, "method"), "method");
        AuthType method = AuthType.fromHba(methodName);
        if (method == null) {
            throw new IllegalArgumentException("unsupported method \"" + methodName
                    + "\" (trust, reject, md5, password, scram-sha-256, cert or peer)");
        }
        if (method == AuthType.PEER && type != Type.LOCAL) {
            throw new IllegalArgumentException("peer authentication is only for local lines");
        }
        String map = null;
        for (; next < fields.size(); next++) {
            var matcher = MAP_OPTION.matcher(single(fields.get(next), "option"));
            if (!matcher.matches()) {
                throw new IllegalArgumentException("unsupported option \"" + fields.get(next).get(0).text()
                        + "\" (only map=)");
            }
            if (method != AuthType.CERT && method != AuthType.PEER) {
                throw new IllegalArgumentException("map= is only for cert and peer");
            }
            map = matcher.group(1);
        }
        return new Line(type, databases, users, address, mask, new Rule(method, map));
    }

    private static List<Word> field(List<List<Word>> fields, int index, String what) {
        if (index >= fields.size()) {
            throw new IllegalArgumentException("no " + what + " field");
        }
        return fields.get(index);
    }

    private static String single(List<Word> field, String what) {
        if (field.size() != 1) {
            throw new IllegalArgumentException("the " + what + " field is a list");
        }
        return field.get(0).text();
    }

    private static Names names(List<Word> words, boolean database, Path file) {
        boolean all = false;
        boolean sameUser = false;
        boolean replication = false;
        Set<String> names = new HashSet<>();
        for (Word word : words) {
            if (word.is("all")) {
                all = true;
            } else if (database && word.is("sameuser")) {
                sameUser = true;
            } else if (database && word.is("replication")) {
                replication = true;
            } else if (database && (word.is("samerole") || word.is("samegroup"))) {
                throw new IllegalArgumentException(word.text() + " is not supported");
            } else if (!word.quoted() && word.text().startsWith("+")) {
                throw new IllegalArgumentException("group names (" + word.text() + ") are not supported");
            } else if (!word.quoted() && word.text().startsWith("@")) {
                names.addAll(namesFile(file.toAbsolutePath().resolveSibling(word.text().substring(1))));
            } else {
                names.add(word.text());
            }
        }
        return new Names(all, sameUser, replication, Set.copyOf(names));
    }

    /** An {@code @file}: names separated by white space or commas, {@code #} comments. */
    private static Set<String> namesFile(Path file) {
        Set<String> names = new HashSet<>();
        List<String> text = readLines(file);
        for (int i = 0; i < text.size(); i++) {
            try {
                for (List<Word> field : HbaTokens.fields(text.get(i))) {
                    field.forEach(word -> names.add(word.text()));
                }
            } catch (IllegalArgumentException e) {
                throw new HbaFormatException(file, i + 1, e.getMessage());
            }
        }
        return names;
    }

    /**
     * An address as inet_pton reads it, which PgBouncer uses: an IPv6 form is 16 bytes, IPv4-mapped
     * ({@code ::ffff:127.0.0.1}) too, so that such a line matches IPv6 clients only, as in PgBouncer and PostgreSQL.
     * Never a name lookup: a line is read without touching the network.
     */
    private static byte[] numericAddress(String text) {
        boolean numeric = text.indexOf(':') >= 0 || text.matches("[0-9.]+");
        if (!numeric) {
            throw new IllegalArgumentException("\"" + text + "\" is not an IP address (host names, samehost and"
                    + " samenet are not supported)");
        }
        byte[] address = text.indexOf('[') >= 0 || text.indexOf('%') >= 0 ? null
                : NetUtil.createByteArrayFromIpAddressString(text);
        if (address == null) {
            throw new IllegalArgumentException("\"" + text + "\" is not an IP address");
        }
        return address;
    }

    private static byte[] prefixMask(String bitsText, int length) {
        int bits;
        try {
            bits = Integer.parseInt(bitsText);
        } catch (NumberFormatException e) {
            bits = -1;
        }
        if (bits < 0 || bits > length * 8) {
            throw new IllegalArgumentException("invalid mask /" + bitsText);
        }
        byte[] mask = new byte[length];
        for (int i = 0; i < bits; i++) {
            mask[i / 8] |= (byte) (0x80 >>> (i % 8));
        }
        return mask;
    }

    private static String reason(IOException e) {
        return e instanceof NoSuchFileException ? "no such file" : e.getMessage();
    }

    /** @throws HbaFormatException naming the line of a byte that is not UTF-8 */
    static List<String> readLines(Path file) {
        try {
            return Utf8Lines.read(file, (line, problem) -> new HbaFormatException(file, line, problem));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
