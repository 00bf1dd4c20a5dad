package io.pgmux.proxy.protocol;

/** GSSENCRequest: the client asks for GSSAPI encryption; the pooler refuses with {@link SslResponse#REJECTED}. */
public final class GssEncRequest {
    public static final int CODE = 80877104;
    public static final GssEncRequest INSTANCE = new GssEncRequest();

    private GssEncRequest() {
    }

    @Override
    public String toString() {
        return "GSSENCRequest";
    }
}
