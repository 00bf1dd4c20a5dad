package io.pgmux.proxy;

import io.netty.buffer.ByteBufAllocator;
import java.lang.management.ManagementFactory;

/**
 * What the first client's login would otherwise pay on an event loop, done once at start before the listeners
 * open: the first pooled buffer (Netty registers its buffer events with JDK Flight Recorder then, generating their
 * classes) and, when pools register MXBeans, the platform MBean server (JMX, JUL and the diagnostic commands). On a
 * freshly started process these took a first login from a few milliseconds to over 100.
 */
final class FirstLoginWarmUp {

    private FirstLoginWarmUp() {
    }

    static void run(boolean registerMbeans) {
        ByteBufAllocator.DEFAULT.buffer(1).release();
        ByteBufAllocator.DEFAULT.directBuffer(1).release();
        if (registerMbeans) {
            ManagementFactory.getPlatformMBeanServer();
        }
    }
}
