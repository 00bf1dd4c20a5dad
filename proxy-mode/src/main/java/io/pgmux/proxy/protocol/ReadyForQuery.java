package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/**
 * ReadyForQuery: the server is idle and tells the transaction status; what transaction pooling releases on.
 * There are only three, so decoding returns a shared instance and allocates nothing.
 */
public final class ReadyForQuery implements EncodableMessage {
    public static final ReadyForQuery IDLE = new ReadyForQuery(TransactionStatus.IDLE);
    public static final ReadyForQuery IN_TRANSACTION = new ReadyForQuery(TransactionStatus.IN_TRANSACTION);
    public static final ReadyForQuery FAILED_TRANSACTION = new ReadyForQuery(TransactionStatus.FAILED_TRANSACTION);

    /** The status byte: {@code 'I'}, {@code 'T'} or {@code 'E'}. */
    public enum TransactionStatus {
        IDLE('I'),
        IN_TRANSACTION('T'),
        FAILED_TRANSACTION('E');

        private final byte code;

        TransactionStatus(char code) {
            this.code = (byte) code;
        }

        public byte code() {
            return code;
        }
    }

    private final TransactionStatus status;

    private ReadyForQuery(TransactionStatus status) {
        this.status = status;
    }

    public static ReadyForQuery of(TransactionStatus status) {
        return switch (status) {
            case IDLE -> IDLE;
            case IN_TRANSACTION -> IN_TRANSACTION;
            case FAILED_TRANSACTION -> FAILED_TRANSACTION;
        };
    }

    public static ReadyForQuery decode(ByteBuf body) {
        byte code = Wire.readByte(body, "transaction status");
        Wire.expectEnd(body, "ReadyForQuery");
        return of(code);
    }

    /**
     * The status of a relayed ReadyForQuery (the last message of {@code message}), read where it lies: the relay
     * asks it of every transaction, and a {@link BackendMessage#body()} view would be an object each time.
     */
    public static TransactionStatus statusOf(BackendMessage message) {
        ByteBuf frames = message.content();
        int at = frames.readerIndex() + message.lastOffset() + Wire.HEADER_LENGTH;
        int length = frames.writerIndex() - at;
        if (length != 1) {
            throw new ProtocolViolationException(length < 1 ? "invalid message format: truncated transaction status"
                    : "invalid message format: trailing bytes in ReadyForQuery");
        }
        return of(frames.getByte(at)).status;
    }

    private static ReadyForQuery of(byte code) {
        return switch (code) {
            case 'I' -> IDLE;
            case 'T' -> IN_TRANSACTION;
            case 'E' -> FAILED_TRANSACTION;
            default -> throw new ProtocolViolationException("invalid transaction status " + (code & 0xFF));
        };
    }

    public TransactionStatus status() {
        return status;
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(BackendMessage.READY_FOR_QUERY);
        out.writeInt(5);
        out.writeByte(status.code());
    }

    @Override
    public String toString() {
        return "ReadyForQuery(" + (char) status.code() + ")";
    }
}
