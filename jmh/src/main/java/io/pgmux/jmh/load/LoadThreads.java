package io.pgmux.jmh.load;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * How a contender's load threads are made: platform threads with small stacks, or virtual threads. The
 * module is built for Java 17, so virtual threads are made through {@code Thread.ofVirtual()} found at
 * run time; asking for them on a JDK without them fails with a clear message.
 */
enum LoadThreads {
    PLATFORM {
        @Override
        Thread make(Runnable task, String name) {
            Thread t = new Thread(null, task, name, STACK_BYTES);
            t.setDaemon(true);
            return t;
        }
    },
    VIRTUAL {
        @Override
        Thread make(Runnable task, String name) {
            Thread t;
            try {
                t = (Thread) VirtualThreads.UNSTARTED.invoke(VirtualThreads.OF_VIRTUAL.invoke(), task);
            } catch (Throwable e) {
                throw new IllegalStateException("could not make a virtual thread", e);
            }
            t.setName(name);
            return t;
        }
    };

    /** Small stacks, so that a thousand platform load threads fit beside the server on a small machine. */
    static final long STACK_BYTES = 256 * 1024;

    /** An unstarted thread that runs {@code task}; virtual threads are always daemons. */
    abstract Thread make(Runnable task, String name);

    /** {@code Thread.ofVirtual()} and {@code Thread.Builder.unstarted(Runnable)}, looked up once. */
    private static final class VirtualThreads {
        static final MethodHandle OF_VIRTUAL;
        static final MethodHandle UNSTARTED;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                Class<?> builder = Class.forName("java.lang.Thread$Builder");
                OF_VIRTUAL = lookup.findStatic(Thread.class, "ofVirtual",
                                MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual")))
                        .asType(MethodType.methodType(Object.class));
                UNSTARTED = lookup.findVirtual(builder, "unstarted", MethodType.methodType(Thread.class, Runnable.class))
                        .asType(MethodType.methodType(Thread.class, Object.class, Runnable.class));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("virtual threads need JDK 21 or later; this is "
                        + Runtime.version(), e);
            }
        }
    }
}
