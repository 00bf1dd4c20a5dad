package io.pgmux.proxy.standalone;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Gives the C heap's free memory back to the system: glibc keeps what the JVM's native allocations and Netty's
 * native transport freed (a login's worth per client, in arenas of each thread) and returns it only when asked
 * ({@code malloc_trim}), so an idle process would keep the RSS its busiest moment left. Asked through the JVM's own
 * diagnostic command, {@code System.trim_native_heap} (as {@code jcmd <pid> System.trim_native_heap}; JDK 17.0.9 and
 * later), so the proxy needs no native code of its own; a JVM or C library without it is left as it is.
 */
final class NativeHeap {
    private static final String OPERATION = "systemTrimNativeHeap";

    private NativeHeap() {
    }

    /** Trims once; what the JVM reported (the RSS before and after), or null where it cannot trim. */
    static String trim() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            Object report = server.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), OPERATION,
                    new Object[0], new String[0]);
            String text = report == null ? "" : report.toString().strip();
            // a C library without malloc_trim: the command runs and says so
            return text.contains("Not available") ? null : text;
        } catch (JMException | RuntimeException e) {
            // a JDK before 17.0.9, or one without the diagnostic command MBean
            return null;
        }
    }
}
