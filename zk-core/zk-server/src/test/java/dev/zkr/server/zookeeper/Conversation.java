package dev.zkr.server.zookeeper;

import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.ReplyHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** A translator past its handshake, with the Apache client's view of what it sends back. */
final class Conversation {

    final ZooKeeperTranslator translator;

    Conversation() {
        this(new ZooKeeperTranslator());
    }

    /** A conversation through {@code translator}. */
    Conversation(ZooKeeperTranslator translator) {
        this.translator = translator;
        translator.decode(ApacheWire.newSession());
        ByteBuf out = Unpooled.buffer();
        translator.encode(new Message.ConnectResponse(Message.PROTOCOL_VERSION, 0x77, new byte[16], 30_000, 1 << 20),
                out);
    }

    /** What the translator hands to the server for a request the Apache client sends. */
    Message send(int xid, int type, Record record) {
        return translator.decode(ApacheWire.request(xid, type, record));
    }

    /** The request, of the expected class. */
    <M extends Message.Request> M sent(int xid, int type, Record record, Class<M> expected) {
        M m = assertInstanceOf(expected, send(xid, type, record));
        assertEquals(xid, m.xid());
        return m;
    }

    /** A request the translator answers itself: the server gets a ping with its xid in its place. */
    void standIn(int xid, int type, Record record) {
        Message.PingRequest ping = assertInstanceOf(Message.PingRequest.class, send(xid, type, record));
        assertEquals(xid, ping.xid());
    }

    /** What the client reads for a server message. */
    record Read(ReplyHeader header, boolean close) {
    }

    /** Encodes the server's message, reads it as the Apache client does into {@code response}. */
    Read answer(Message m, Record response) {
        ByteBuf out = Unpooled.buffer();
        boolean close = translator.encode(m, out);
        ReplyHeader h = ApacheWire.reply(out, response);
        assertFalse(out.isReadable(), "one frame per message");
        return new Read(h, close);
    }

    /** The server's answer to a stand-in ping, as the client reads it. */
    Read pingAnswer(int xid, long zxid, Record response) {
        return answer(new Message.Reply(xid, zxid, 0, null, null), response);
    }
}
