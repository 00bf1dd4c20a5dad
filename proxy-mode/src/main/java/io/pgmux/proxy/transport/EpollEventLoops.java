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
 */
final class EpollEventLoops extends MultiThreadIoEventLoopGroup {

    EpollEventLoops(int threads) {
        super(threads, EpollIoHandler.newFactory());
    }

    @Override
    protected IoEventLoop newChild(Executor executor, IoHandlerFactory ioHandlerFactory, Object... args) {
        return new Loop(this, executor, ioHandlerFactory);
    }

    static final class Loop extends SingleThreadIoEventLoop {
        Loop(EpollEventLoops group, Executor executor, IoHandlerFactory ioHandlerFactory) {
            super(group, executor, ioHandlerFactory);
        }

        /** The next scheduled task's deadline, or -1 when none is scheduled: no deadline at all. */
        @Override
        protected long deadlineNanos() {
            return nextScheduledTaskDeadlineNanos();
        }
    }
}
