package io.pgmux.jmh.load;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.postgresql.util.DriverInfo;

/** Versions of the compared libraries, so that a result table says what it compared. */
final class Versions {
    private Versions() {
    }

    /** From Maven's pom.properties, which the shaded jar keeps (it drops the dependencies' manifests). */
    static String hikari() {
        try (InputStream in = Versions.class.getResourceAsStream("/META-INF/maven/com.zaxxer/HikariCP/pom.properties")) {
            if (in == null) {
                return "?";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }

    static String pgjdbc() {
        return DriverInfo.DRIVER_VERSION;
    }
}
