package dev.zkr.server.zookeeper;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Splits a ZooKeeper-protocol connection's bytes into frames: a 4-byte big-endian length, then that many bytes (the
 * ConnectRequest, or a RequestHeader and its record). Emits each frame without its length as a retained slice. A
 * length below 0 or above {@code maxFrame} fails with {@link ZooKeeperProtocolException.Kind#BAD_LENGTH} (ZooKeeper
 * closes the connection on it, "Len error"); input after that is discarded. A length of 0 is a frame like any other
 * (ZooKeeper accepts it too and then fails to read a header from it). One per connection (it holds a partial frame).
 */
public final class ZooKeeperFrameDecoder extends ByteToMessageDecoder {

    private final int maxFrame;
    private boolean failed;

    /** @param maxFrame the largest frame accepted, without its 4-byte length */
    public ZooKeeperFrameDecoder(int maxFrame) {
        if (maxFrame < 0) {
            throw new IllegalArgumentException("maxFrame " + maxFrame);
        }
        this.maxFrame = maxFrame;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= 4) {
            int length = in.getInt(in.readerIndex());
            if (length < 0 || length > maxFrame) {
                failed = true;
                in.skipBytes(in.readableBytes());
                throw new ZooKeeperProtocolException(ZooKeeperProtocolException.Kind.BAD_LENGTH,
                        "frame length " + length + " out of range (0.." + maxFrame + ")");
            }
            if (in.readableBytes() < 4 + length) {
                return;
            }
            in.skipBytes(4);
            out.add(in.readRetainedSlice(length));
        }
    }
}
