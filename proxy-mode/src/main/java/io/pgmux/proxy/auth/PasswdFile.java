package io.pgmux.proxy.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The user names of uids, as getpwuid(3) finds them in the {@code files} source: {@code /etc/passwd}, lines
 * {@code name:password:uid:gid:gecos:home:shell}. The JDK has no getpwuid; users of other sources (LDAP, SSSD)
 * are not found here, so peer authentication refuses them, naming the uid. The file is read at each lookup, as
 * the C library does, so that a user added to it is found at once; a caller off the event loops does it.
 */
public final class PasswdFile {
    public static final Path SYSTEM = Path.of("/etc/passwd");

    private PasswdFile() {
    }

    /**
     * The name of {@code uid}'s first line in {@code file}, or null when no line has that uid.
     *
     * @throws IOException when the file cannot be read
     */
    public static String userName(Path file, int uid) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        String wanted = Integer.toUnsignedString(uid);
        for (String line : lines) {
            String[] fields = line.split(":", 4);
            if (fields.length >= 3 && !line.startsWith("#") && fields[2].equals(wanted)) {
                return fields[0];
            }
        }
        return null;
    }
}
