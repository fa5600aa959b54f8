package dev.zkr.wire.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Recognises the start of a TLS record (the first bytes of a ClientHello, or of a server's alert) among the first
 * bytes of a connection, where a plaintext zkr connection starts with a 4-byte frame length whose first byte is 0
 * for any frame under 16 MiB. Used by a server's port to tell TLS from plaintext clients and by a plaintext client
 * to tell that a server answered in TLS.
 */
public final class TlsRecords {

    /** Bytes needed to decide: content type, version major, version minor. */
    public static final int HEADER = 3;

    private TlsRecords() {
    }

    /**
     * True if the readable bytes start like a TLS record: content type 20–23 (change cipher spec, alert,
     * handshake, application data), then protocol version 3.0–3.4. Needs {@link #HEADER} readable bytes.
     */
    public static boolean looksLikeTls(ByteBuf in) {
        int i = in.readerIndex();
        int type = in.getUnsignedByte(i);
        int major = in.getUnsignedByte(i + 1);
        int minor = in.getUnsignedByte(i + 2);
        return type >= 20 && type <= 23 && major == 3 && minor <= 4;
    }

    /**
     * A TLS 1.2-framed fatal {@code unexpected_message} alert: what a TLS-only port answers a plaintext client, so
     * the client can tell it met TLS instead of seeing the connection just close.
     */
    public static ByteBuf unexpectedMessageAlert() {
        return Unpooled.wrappedBuffer(new byte[] {21, 3, 3, 0, 2, 2, 10});
    }
}
