package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL 17's direct TLS ({@code sslnegotiation=direct}), which PgBouncer 1.25 accepts from clients: a client
 * that starts with a TLS handshake record instead of a startup packet gets TLS at once, without SSLRequest. As in
 * PostgreSQL, such a client must negotiate the ALPN protocol {@code postgresql}: one offering only others gets the
 * TLS alert no_application_protocol, one offering none is closed after the handshake. With client TLS disabled,
 * or over the Unix socket (where PgBouncer has no TLS), the connection is closed. The first bytes decide; the
 * handler then leaves the pipeline, handing them on.
 */
public final class DirectTls extends ByteToMessageDecoder {
    /** PostgreSQL's ALPN protocol name. */
    static final String ALPN_PROTOCOL = "postgresql";
    /** The content type of a TLS handshake record; no startup packet starts with it (its length would be huge). */
    private static final byte HANDSHAKE_RECORD = 0x16;
    private static final Logger log = LoggerFactory.getLogger(DirectTls.class);

    private final ProxyContext context;

    public DirectTls(ProxyContext context) {
        this.context = context;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!in.isReadable()) {
            return;
        }
        if (in.getByte(in.readerIndex()) != HANDSHAKE_RECORD) {
            ctx.pipeline().remove(this);
            return;
        }
        ClientTls tls = context.clientTls();
        if (!tls.offeredTo(ctx.channel())) {
            log.info("client {} asked for direct TLS, but client TLS is disabled or it came over the Unix socket",
                    ctx.channel().remoteAddress());
            in.skipBytes(in.readableBytes());
            ctx.close();
            return;
        }
        SslHandler ssl = tls.newHandler(ctx.alloc());
        ssl.handshakeFuture().addListener(handshake -> {
            if (handshake.isSuccess() && !ALPN_PROTOCOL.equals(ssl.applicationProtocol())) {
                log.info("client {} used direct TLS without ALPN protocol negotiation", ctx.channel().remoteAddress());
                ctx.channel().close();
            }
        });
        // the bytes read so far go on to the TLS handler that takes this one's place
        ctx.pipeline().replace(this, null, ssl);
    }
}
