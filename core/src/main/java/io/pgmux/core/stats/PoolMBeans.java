package io.pgmux.core.stats;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool's MXBeans on the platform MBean server, named {@code io.pgmux:type=<type>,name=<pool>}: the pool's own
 * ({@code Pool}) and the JDBC data source's configuration ({@code PoolConfig}). A failure is logged, never thrown:
 * a pool serves without JMX.
 */
public final class PoolMBeans {
    private static final Logger log = LoggerFactory.getLogger(PoolMBeans.class);

    private PoolMBeans() {
    }

    /** Registers {@code mbean} unless the name is taken; whether this call registered it. */
    public static boolean register(String type, String pool, Object mbean) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = name(type, pool);
            if (!server.isRegistered(name)) {
                server.registerMBean(mbean, name);
                return true;
            }
        } catch (JMException e) {
            log.warn("pool {}: could not register its {} MXBean", pool, type, e);
        }
        return false;
    }

    public static void unregister(String type, String pool) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = name(type, pool);
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
        } catch (JMException e) {
            log.debug("pool {}: could not unregister its {} MXBean", pool, type, e);
        }
    }

    private static ObjectName name(String type, String pool) throws JMException {
        return new ObjectName("io.pgmux:type=" + type + ",name=" + ObjectName.quote(pool));
    }
}
