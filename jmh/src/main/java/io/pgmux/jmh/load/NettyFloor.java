package io.pgmux.jmh.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.util.ResourceLeakDetector;
import io.pgmux.proxy.auth.ScramException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The least work a transaction pooler on Netty does, as a floor to measure the proxy against: one epoll event loop
 * (the proxy's {@code threads = 1}), messages framed by their headers and forwarded as they were read, a server lent
 * from the first message after a ReadyForQuery that said idle until the next one that says idle again, clients
 * queued first come first served while every server is lent. Nothing else: clients are let in without a password
 * and told fixed settings, no setting, prepared statement or timeout is kept, a client that leaves in the middle of
 * a transaction gives its server back as it is. Not a pooler to use; what its CPU per transaction says is how much
 * of the proxy's is Netty's and the JVM's own.
 *
 * <pre>
 * java -cp benchmarks.jar io.pgmux.jmh.load.NettyFloor --port 6690 --server HOST:PORT --database D --user U
 *      --password PW [--pool-size 20] [--seconds N]
 * </pre>
 *
 * Logs in {@code --pool-size} servers (trust, cleartext, md5 or SCRAM-SHA-256), prints {@code listening PORT} once
 * it takes clients, and runs until killed, or for {@code --seconds}. Netty's leak detection is off, as in the proxy's
 * process, unless {@code -Dio.netty.leakDetection.level} names a level.
 */
public final class NettyFloor implements Floor {
    private static final int SSL_REQUEST = 80877103;
    private static final int GSSENC_REQUEST = 80877104;
    private static final int CANCEL_REQUEST = 80877102;
    private static final int HEADER = 5;
    private static final byte[] WELCOME = Floor.welcome();

    private final EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    /** Read and written on the one event loop only, as everything of a connection below. */
    private final ArrayDeque<FloorServer> idle = new ArrayDeque<>();
    private final ArrayDeque<FloorClient> waiting = new ArrayDeque<>();
    private final Channel listener;

    private NettyFloor(int port, String serverHost, int serverPort, String database, String user, String password,
            int poolSize) throws IOException, InterruptedException {
        try {
            for (int i = 0; i < poolSize; i++) {
                FloorServer server = new FloorServer(database, user, password);
                new Bootstrap().group(loop).channel(EpollSocketChannel.class)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .handler(server).connect(serverHost, serverPort).sync();
                server.loggedIn.join();
            }
            listener = new ServerBootstrap().group(loop).channel(EpollServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new FloorClient());
                        }
                    }).bind("127.0.0.1", port).sync().channel();
        } catch (CompletionException e) {
            close();
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e;
        } catch (RuntimeException | InterruptedException e) {
            close();
            throw e;
        }
    }

    static NettyFloor start(int port, String serverHost, int serverPort, String database, String user,
            String password, int poolSize) throws IOException, InterruptedException {
        return new NettyFloor(port, serverHost, serverPort, database, user, password, poolSize);
    }

    @Override
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public void close() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // as the proxy's process: Netty's default traces one buffer in 128 with a stack trace each
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        Floor.run(args, 6690, NettyFloor::start);
    }

    /** Bytes of the whole messages at the start of {@code buf}; {@code last} gets the last one's type and end byte. */
    private static int whole(ByteBuf buf, byte[] last) {
        int start = buf.readerIndex();
        int end = buf.writerIndex();
        int i = start;
        while (end - i >= HEADER) {
            int length = buf.getInt(i + 1);
            if (length < 4) {
                throw new IllegalStateException("message length " + length);
            }
            if (end - i < length + 1) {
                break;
            }
            last[0] = buf.getByte(i);
            last[1] = buf.getByte(i + length);
            i += length + 1;
        }
        return i - start;
    }

    /** What was left of the last read followed by this one. */
    private static ByteBuf cumulate(ChannelHandlerContext ctx, ByteBuf held, ByteBuf read) {
        if (held == null) {
            return read;
        }
        ByteBuf both = ctx.alloc().ioBuffer(held.readableBytes() + read.readableBytes());
        both.writeBytes(held).writeBytes(read);
        held.release();
        read.release();
        return both;
    }

    private void giveBack(FloorServer server) {
        FloorClient next = waiting.pollFirst();
        if (next != null) {
            next.lend(server);
        } else {
            idle.addFirst(server);
        }
    }

    /** What both sides keep: their context, the bytes read and not yet forwarded, the last whole message seen. */
    private abstract static class FloorConnection extends ChannelInboundHandlerAdapter {
        final byte[] last = new byte[2];
        ChannelHandlerContext ctx;
        ByteBuf held;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        /** The first {@code n} bytes held, as a buffer of their own to forward. */
        ByteBuf take(int n) {
            if (n < held.readableBytes()) {
                return held.readRetainedSlice(n);
            }
            ByteBuf all = held;
            held = null;
            return all;
        }

        void dropIfEmpty() {
            if (held != null && !held.isReadable()) {
                held.release();
                held = null;
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    private final class FloorClient extends FloorConnection {
        private boolean loggedIn;
        private FloorServer server;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            held = cumulate(ctx, held, (ByteBuf) msg);
            if (loggedIn) {
                forward();
            } else {
                startup();
            }
        }

        private void startup() {
            if (held.readableBytes() < 8 || held.readableBytes() < held.getInt(held.readerIndex())) {
                return;
            }
            int code = held.getInt(held.readerIndex() + 4);
            held.skipBytes(held.getInt(held.readerIndex()));
            if (code == SSL_REQUEST || code == GSSENC_REQUEST) {
                ctx.writeAndFlush(ctx.alloc().ioBuffer(1).writeByte('N'));
            } else if (code == CANCEL_REQUEST) {
                ctx.close();
            } else {
                ByteBuf welcome = ctx.alloc().ioBuffer(WELCOME.length).writeBytes(WELCOME);
                ctx.writeAndFlush(welcome);
                loggedIn = true;
            }
            dropIfEmpty();
        }

        /** Sends the whole messages held to this client's server, taking one first or waiting for one. */
        private void forward() {
            if (held == null) {
                return;
            }
            if (server == null) {
                if (held.getByte(held.readerIndex()) == 'X') {
                    ctx.close();
                    return;
                }
                server = idle.pollFirst();
                if (server == null) {
                    waiting.addLast(this);
                    ctx.channel().config().setAutoRead(false);
                    return;
                }
                server.client = this;
            }
            int n = whole(held, last);
            if (n > 0) {
                server.ctx.writeAndFlush(take(n), server.ctx.voidPromise());
            }
            dropIfEmpty();
        }

        void lend(FloorServer lent) {
            server = lent;
            lent.client = this;
            ctx.channel().config().setAutoRead(true);
            forward();
        }

        void transactionEnded() {
            server = null;
            if (held != null) {
                forward();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            waiting.remove(this);
            if (held != null) {
                held.release();
                held = null;
            }
            if (server != null) {
                FloorServer lent = server;
                server = null;
                lent.client = null;
                giveBack(lent);
            }
        }
    }

    private final class FloorServer extends FloorConnection {
        final CompletableFuture<Void> loggedIn = new CompletableFuture<>();
        private final String database;
        private final RawLogin.Authentication authentication;
        private FloorClient client;

        FloorServer(String database, String user, String password) {
            this.database = database;
            this.authentication = new RawLogin.Authentication(user, password);
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(ctx.alloc().ioBuffer().writeBytes(RawLogin.startupPacket(database,
                    authentication.user())));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            held = cumulate(ctx, held, (ByteBuf) msg);
            if (!loggedIn.isDone()) {
                logIn();
            } else {
                relay();
            }
            dropIfEmpty();
        }

        private void logIn() {
            while (held.readableBytes() >= HEADER && held.readableBytes() > held.getInt(held.readerIndex() + 1)) {
                char type = (char) held.readByte();
                byte[] body = new byte[held.readInt() - 4];
                held.readBytes(body);
                if (type == 'Z') {
                    idle.addLast(this);
                    loggedIn.complete(null);
                    return;
                }
                try {
                    byte[] reply = authentication.answer(type, body);
                    if (reply != null) {
                        ctx.writeAndFlush(ctx.alloc().ioBuffer(reply.length).writeBytes(reply));
                    }
                } catch (IOException | ScramException e) {
                    loggedIn.completeExceptionally(new IOException("server login failed: " + e.getMessage(), e));
                    ctx.close();
                    return;
                }
            }
        }

        /** Forwards whole messages to the client; a ReadyForQuery that says idle ends the loan. */
        private void relay() {
            int n = whole(held, last);
            if (n == 0) {
                return;
            }
            FloorClient to = client;
            ByteBuf out = take(n);
            if (to == null) {
                out.release();
                return;
            }
            to.ctx.writeAndFlush(out, to.ctx.voidPromise());
            if (last[0] == 'Z' && last[1] == 'I' && held == null) {
                client = null;
                giveBack(this);
                to.transactionEnded();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            idle.remove(this);
            loggedIn.completeExceptionally(new IOException("the server closed the connection during login"));
            if (client != null) {
                client.ctx.close();
            }
        }
    }
}
