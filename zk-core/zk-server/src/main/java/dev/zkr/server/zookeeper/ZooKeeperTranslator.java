package dev.zkr.server.zookeeper;

import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;

import java.util.ArrayDeque;

/**
 * One ZooKeeper-protocol connection's translation, both ways: each frame the client sends (after
 * {@link ZooKeeperFrameDecoder}) becomes the zkr {@link Message} the server already serves, and each message the
 * server sends for the connection becomes the frame ZooKeeper's client expects. The first frame is the handshake
 * ({@link Message.ConnectRequest}); every later one a {@link Message.Request} with the client's xid. Replies come
 * back in request order, as zkr's server sends them; the translator keeps, per request in flight, what its reply
 * needs (the opcode, a sync's path, a multi's op types, or the answer it decided itself; see
 * {@link RequestDecoder}). Not thread-safe: use it from the connection's event loop.
 */
public final class ZooKeeperTranslator {

    /**
     * The largest frame (without its length) ZooKeeper's client reads: its {@code jute.maxbuffer}, 0xfffff bytes by
     * default; a longer one makes it drop the connection ("Packet len is out of range").
     */
    public static final int CLIENT_MAX_FRAME = 0xfffff;

    private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
    private final int maxReplyFrame;
    private final java.util.function.IntConsumer oversized;
    /** Whether reconfig is served (the server's {@code reconfigEnabled}); else answered RECONFIG_DISABLED. */
    private final boolean reconfigEnabled;
    private final Jute.Writer writer = new Jute.Writer();
    private boolean connected;
    /** Whether the client's ConnectRequest carried the readOnly byte (its ConnectResponse then does). */
    private boolean readOnlyField;
    private boolean readOnly;
    /** A request was answered with a closing answer: the connection closes after it, later frames are dropped. */
    private boolean closing;

    /** A translator whose replies are never refused for their size. */
    public ZooKeeperTranslator() {
        this(Integer.MAX_VALUE, bytes -> { });
    }

    /**
     * A translator that answers a request whose reply frame would exceed {@code maxReplyFrame} bytes (without its
     * length) with an error instead ({@code DATA_TOO_LARGE}, which a ZooKeeper client sees as {@code BADARGUMENTS}),
     * so the client keeps its connection and its other requests; {@code oversized} is told the refused frame's size.
     */
    public ZooKeeperTranslator(int maxReplyFrame, java.util.function.IntConsumer oversized) {
        this(maxReplyFrame, oversized, false);
    }

    /**
     * As above; {@code reconfigEnabled}: ZooKeeper's reconfig is handed to the server (the server's
     * {@code reconfigEnabled}), else answered RECONFIG_DISABLED as a ZooKeeper server without it answers.
     */
    public ZooKeeperTranslator(int maxReplyFrame, java.util.function.IntConsumer oversized, boolean reconfigEnabled) {
        this.maxReplyFrame = maxReplyFrame;
        this.oversized = oversized;
        this.reconfigEnabled = reconfigEnabled;
    }

    /**
     * The message for one client frame (without its length): the handshake for the first, a request for the others;
     * null when the frame is to be dropped (the connection closes once an answer already decided goes out). Reads
     * the frame's bytes; the caller keeps it (and releases it).
     *
     * @throws ZooKeeperProtocolException for a first frame that is not a ConnectRequest, a frame without a
     *                                    RequestHeader, an auth or sasl packet that does not decode: the port closes
     *                                    the connection, with one log line
     */
    public Message decode(ByteBuf frame) {
        if (!connected) {
            Handshake.Connect c = Handshake.decode(frame);
            connected = true;
            readOnlyField = c.readOnlyField();
            readOnly = c.readOnly();
            return c.request();
        }
        if (closing) {
            return null;
        }
        RequestDecoder.Decoded d = RequestDecoder.decode(frame, reconfigEnabled);
        inFlight.addLast(d.pending());
        if (d.pending().answer() != null && d.pending().answer().close()) {
            closing = true;
        }
        return d.request();
    }

    /**
     * Appends the frame (if any) for a message the server sends on this connection; true if the connection is to
     * be closed once it is written (a refused handshake, closeSession's reply, a failed auth, an unknown opcode's
     * answer, zkr's ProtocolError, for which the client gets no frame: ZooKeeper just closes).
     *
     * @throws IllegalStateException if the server answers out of order or with a body that does not fit the
     *                               request (a server bug: the port closes the connection)
     */
    public boolean encode(Message message, ByteBuf out) {
        if (message instanceof Message.Reply r) {
            Pending p = inFlight.pollFirst();
            if (p == null) {
                throw new IllegalStateException("reply to xid " + r.xid() + " with no request in flight");
            }
            int start = out.writerIndex();
            boolean close = ReplyEncoder.reply(r, p, writer, out);
            int length = out.writerIndex() - start - 4;
            if (length > maxReplyFrame) {
                out.writerIndex(start);
                close = ReplyEncoder.reply(new Message.Reply(r.xid(), r.zxid(),
                        dev.zkr.client.ZkException.Code.DATA_TOO_LARGE.intValue(), null,
                        "the reply is " + length + " bytes, over the " + maxReplyFrame + " a client accepts"),
                        p, writer, out);
                oversized.accept(length);
            }
            return close;
        } else if (message instanceof Message.WatchEvent e) {
            ReplyEncoder.event(e, writer, out);
            return false;
        } else if (message instanceof Message.ConnectResponse r) {
            Handshake.accepted(r, readOnlyField, writer, out);
            return false;
        } else if (message instanceof Message.ConnectRefused r) {
            Handshake.refused(r, readOnlyField, writer, out);
            return true;
        } else if (message instanceof Message.ProtocolError) {
            return true;
        }
        throw new IllegalArgumentException("not a server message: " + message.getClass().getSimpleName());
    }

    /** Requests decoded and not yet answered. */
    public int inFlight() {
        return inFlight.size();
    }

    /** Whether the client said it accepts a read-only server (a 3.4+ client's readOnly byte; false without it). */
    public boolean clientAcceptsReadOnly() {
        return readOnly;
    }
}
