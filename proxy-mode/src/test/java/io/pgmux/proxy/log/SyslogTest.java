package io.pgmux.proxy.log;

import io.pgmux.proxy.config.SyslogFacility;
import java.io.IOException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SyslogTest {
    private static final long PID = ProcessHandle.current().pid();

    @TempDir
    Path dir;

    @Test
    void aLineIsOneDatagramWithPriorityTimestampIdentAndPidAsTheCLibraryWritesIt() throws Exception {
        try (SyslogReceiver daemon = new SyslogReceiver(dir.resolve("log"));
                Syslog syslog = Syslog.open(daemon.path(), "pgbouncer-test", SyslogFacility.LOCAL3)) {
            syslog.send(6, "C-0x1: app/app@127.0.0.1:5000 login attempt: db=app user=app tls=no");
            Matcher m = daemon.await(Pattern.compile("<(\\d+)>([A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d) "
                    + "pgbouncer-test\\[" + PID + "\\]: (.*)"));
            assertEquals(19 * 8 + 6, Integer.parseInt(m.group(1)), "local3.info");
            assertEquals("C-0x1: app/app@127.0.0.1:5000 login attempt: db=app user=app tls=no", m.group(3));
        }
    }

    @Test
    void theFacilityAndSeverityMakeThePriority() throws Exception {
        try (SyslogReceiver daemon = new SyslogReceiver(dir.resolve("log"));
                Syslog syslog = Syslog.open(daemon.path(), "p", SyslogFacility.DAEMON)) {
            syslog.send(2, "fatal");
            assertEquals("26", daemon.await(Pattern.compile("<(\\d+)>.* p\\[\\d+\\]: fatal")).group(1),
                    "daemon.crit");
        }
    }

    @Test
    void aMessagesLineBreaksAreFollowedByATabAsPgBouncerWritesThem() throws Exception {
        try (SyslogReceiver daemon = new SyslogReceiver(dir.resolve("log"));
                Syslog syslog = Syslog.open(daemon.path(), "p", SyslogFacility.USER)) {
            syslog.send(4, "first\nsecond\n");
            assertTrue(daemon.await(Pattern.compile("(?s)<12>.*")).group().endsWith(": first\n\tsecond"));
        }
    }

    @Test
    void noSocketAtThePathIsSaidWhenOpening() {
        IOException e = assertThrows(IOException.class,
                () -> Syslog.open(dir.resolve("missing"), "p", SyslogFacility.DAEMON));
        assertTrue(e.getMessage().contains(dir.resolve("missing") + " does not exist"), e.getMessage());
    }

    @Test
    void facilitiesArePgBouncersNamesAndAnUnknownOneIsRefused() {
        assertEquals(SyslogFacility.LOCAL7, SyslogFacility.fromConfig("local7"));
        assertEquals(10, SyslogFacility.fromConfig("authpriv").code());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SyslogFacility.fromConfig("kern"));
        assertTrue(e.getMessage().startsWith("syslog_facility must be auth, authpriv, daemon, user or local0"),
                e.getMessage());
    }
}
