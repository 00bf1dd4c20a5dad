package io.pgmux.proxy.transport;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import io.netty.channel.epoll.EpollIoHandler;
import java.util.concurrent.Executor;

/**
 * Epoll event loops that sleep until their next scheduled task, or until woken, when none is scheduled. Netty 4.2's
 * loop gives its I/O handler a deadline one second away when nothing is scheduled, so an idle loop woke once a
 * second for nothing; epoll's handler takes "no deadline" (-1) as waiting without a timer, as Netty 4.1's loop did.
 * A task submitted or scheduled from another thread still wakes the loop, as it does when it sleeps until a
 * deadline.
 *
 * <p>The loops also keep no account of their busy time: Netty 4.2 times each pass over ready sockets (two clock
 * reads and a third in the report) for a group that suspends idle loops and scales their number, which this group
 * does not do; those reads were 2 % of a loop's user time in the relay.
 */
final class EpollEventLoops extends MultiThreadIoEventLoopGroup {

    EpollEventLoops(int threads) {
        super(threads, EpollIoHandler.newFactory());
    }

    @Override
    protected IoEventLoop newChild(Executor executor, IoHandlerFactory ioHandlerFactory, Object... args) {
        // the factory as a lambda says the handler cannot change threads, as an IoHandlerFactory does by default:
        // a loop that cannot be suspended
        return new Loop(this, executor, ioHandlerFactory::newHandler);
    }

    static final class Loop extends SingleThreadIoEventLoop {
        /** The clock as this pass over the ready sockets first read it, or 0 until it does ({@link LoopClock}). */
        private long passNanos;

        Loop(EpollEventLoops group, Executor executor, IoHandlerFactory ioHandlerFactory) {
            super(group, executor, ioHandlerFactory);
        }

        /** A new pass: the wait for ready sockets comes first, so the time is read again after it. */
        @Override
        protected int runIo() {
            passNanos = 0;
            return super.runIo();
        }

        long passNanoTime() {
            assert inEventLoop() : "a loop's clock read off the loop";
            long now = passNanos;
            if (now == 0) {
                now = System.nanoTime();
                passNanos = now;
            }
            return now;
        }

        /** The next scheduled task's deadline, or -1 when none is scheduled: no deadline at all. */
        @Override
        protected long deadlineNanos() {
            return nextScheduledTaskDeadlineNanos();
        }
    }
}
