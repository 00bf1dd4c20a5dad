package io.pgmux.proxy.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The buffers a socket served without a channel was given leave in order, whole, however little the socket takes at
 * a time: a writev the socket takes in part, and more buffers than one vector holds.
 */
class UnsentBytesTest {
    /** More than IOV_MAX (1,024), so one send cannot take them all in one vector. */
    private static final int BUFFERS = 1500;

    @Test
    void buffersBeyondWhatTheSocketTakesArriveInOrderThroughPartialSends() throws Exception {
        Epoll.ensureAvailability();
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReceiveBufferSize(4096);
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            Socket fd = Socket.newSocketStream();
            try {
                fd.setSendBufferSize(4096);
                if (!fd.connect(listener.getLocalSocketAddress())) {
                    while (!fd.finishConnect()) {
                        Thread.sleep(1);
                    }
                }
                try (java.net.Socket peer = listener.accept()) {
                    UnsentBytes unsent = new UnsentBytes();
                    List<ByteBuf> given = new ArrayList<>();
                    ByteArrayOutputStream expected = new ByteArrayOutputStream();
                    for (int i = 0; i < BUFFERS; i++) {
                        byte[] bytes = new byte[1 + i % 1400];
                        for (int j = 0; j < bytes.length; j++) {
                            bytes[j] = (byte) (i * 31 + j);
                        }
                        expected.write(bytes);
                        ByteBuf buffer = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
                        given.add(buffer);
                        unsent.add(buffer);
                    }
                    assertEquals(expected.size(), unsent.bytes());
                    assertFalse(unsent.sendTo(fd), "the socket took all of a megabyte at once");

                    ByteArrayOutputStream received = new ByteArrayOutputStream();
                    InputStream in = peer.getInputStream();
                    byte[] chunk = new byte[8192];
                    while (received.size() < expected.size()) {
                        int n = in.read(chunk);
                        assertTrue(n > 0, "the stream ended early");
                        received.write(chunk, 0, n);
                        if (!unsent.isEmpty()) {
                            unsent.sendTo(fd);
                        }
                    }
                    assertArrayEquals(expected.toByteArray(), received.toByteArray());
                    assertTrue(unsent.isEmpty());
                    assertEquals(0, unsent.bytes());
                    assertTrue(given.stream().allMatch(b -> b.refCnt() == 0), "every buffer sent was released");
                }
            } finally {
                fd.close();
            }
        }
    }
}
