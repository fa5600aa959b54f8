package dev.zkr.server.zookeeper;

import io.netty.handler.codec.DecoderException;

/**
 * Input on a ZooKeeper-protocol connection that cannot be answered, only refused: the port closes the connection
 * with one log line (its {@link #getMessage()}), as ZooKeeper closes it. Inputs ZooKeeper answers (an unknown
 * opcode, a record that does not decode) are answered instead and never throw this. A {@link DecoderException}, so
 * a Netty pipeline hands it to {@code exceptionCaught} as it is.
 */
public final class ZooKeeperProtocolException extends DecoderException {

    /** What was wrong. */
    public enum Kind {
        /** A frame length below 0 or above the port's frame limit. */
        BAD_LENGTH,
        /** A first frame that is not exactly one ConnectRequest (a request before the handshake, or garbage). */
        BAD_HANDSHAKE,
        /** A frame too short for its RequestHeader, or an auth packet that does not decode. */
        BAD_REQUEST
    }

    private final Kind kind;

    ZooKeeperProtocolException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this; // control flow: the message says it all
    }
}
