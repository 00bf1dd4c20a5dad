package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

/** The standalone proxy's log lines. */
class ProcessLogTest {
    private static final DateTimeFormatter PGBOUNCER = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS z");

    @Test
    void aLineIsStampedAsPgBouncerStampsItToTheMillisecond() {
        long start = Instant.parse("2026-03-29T00:59:58.990Z").toEpochMilli();
        // milliseconds of one, two and three digits, within a second and across seconds, minutes and hours
        for (long millis = start; millis < start + 2_100; millis += 7) {
            assertEquals(PGBOUNCER.format(Instant.ofEpochMilli(millis).atZone(ZoneId.systemDefault())),
                    ProcessLog.timestamp(millis), "at " + millis);
        }
    }

    @Test
    void aClockThatStepsBackIsStampedWithItsOwnSecond() {
        long millis = Instant.parse("2026-12-05T06:00:00.005Z").toEpochMilli();
        ProcessLog.timestamp(millis + 60_000);
        assertEquals(PGBOUNCER.format(Instant.ofEpochMilli(millis).atZone(ZoneId.systemDefault())),
                ProcessLog.timestamp(millis));
    }
}
