package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The standalone proxy, started as its own process from a pgbouncer.ini-shaped file. */
@PostgresTest
class MainTest {
    private static final Pattern LISTENING = Pattern.compile("listening on .*:(\\d+) ");
    private final TestDatabase db;

    MainTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void standaloneProxyServesClientsFromAnIniFile(@TempDir Path dir) throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Assumptions.assumeTrue(classpath != null && !classpath.isEmpty(), "no test classpath to start a JVM with");
        Files.writeString(dir.resolve("userlist.txt"), "\"app\" \"app-secret\"\n");
        Path ini = dir.resolve("pgmux.ini");
        Files.writeString(ini, "[databases]\n"
                + "app = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\npool_mode = transaction\n"
                + "default_pool_size = 2\nauth_type = scram-sha-256\nauth_file = userlist.txt\n"
                + "max_client_conn = 10\nlogfile = /dev/null\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", classpath, "io.pgmux.proxy.Main", ini.toString())
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            int port = -1;
            StringBuilder seen = new StringBuilder();
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                seen.append(line).append(File.separatorChar == '/' ? "\n" : "\r\n");
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    port = Integer.parseInt(m.group(1));
                    break;
                }
            }
            assertTrue(port > 0, "the proxy did not report its port:\n" + seen);
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/app",
                    "app", "app-secret");
                 Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_database()")) {
                rs.next();
                assertEquals(db.name(), rs.getString(1));
            }
        } finally {
            process.destroy();
            assertTrue(process.waitFor(15, TimeUnit.SECONDS), "the proxy did not stop on SIGTERM");
        }
    }
}
