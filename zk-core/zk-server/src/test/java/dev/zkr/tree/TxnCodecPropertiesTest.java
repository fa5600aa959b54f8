package dev.zkr.tree;

import dev.zkr.client.ZkException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TxnCodecPropertiesTest {

    @Property
    void roundTrip(@ForAll("headers") TxnHeader header, @ForAll("txns") Txn txn) {
        byte[] bytes = TxnCodec.encode(header, txn);
        TxnCodec.Entry e = TxnCodec.decode(bytes);
        assertEquals(header, e.header());
        assertEquals(txn, e.txn());
        assertArrayEquals(bytes, TxnCodec.encode(e.header(), e.txn()));
    }

    @Property
    void truncatedInputIsRejectedCleanly(@ForAll("headers") TxnHeader header, @ForAll("txns") Txn txn) {
        byte[] bytes = TxnCodec.encode(header, txn);
        for (int len = 0; len < bytes.length; len += 1 + len / 4) {
            byte[] cut = Arrays.copyOf(bytes, len);
            assertThrows(IllegalArgumentException.class, () -> TxnCodec.decode(cut));
        }
    }

    @Property
    void corruptedInputDecodesOrFailsWithIllegalArgument(@ForAll("txns") Txn txn, @ForAll int position,
                                                          @ForAll byte value) {
        byte[] bytes = TxnCodec.encode(new TxnHeader(1, 2, 3, 0), txn);
        bytes[Math.floorMod(position, bytes.length)] = value;
        try {
            TxnCodec.decode(bytes);
        } catch (IllegalArgumentException expected) {
            // fine: typed failure, no other exception type, no huge allocation
        }
    }

    @Test
    void format1PayloadsOfOldLogsStillDecode() throws IOException {
        // the bytes today's format replaced, written field by field: zxid, time, sessionId, then the txn
        byte[] create = LegacyPayloads.create(7, 1_000, 0x42, "/old", "v".getBytes(StandardCharsets.UTF_8), 3);
        TxnCodec.Entry e = TxnCodec.decode(create);
        assertEquals(new TxnHeader(7, 1_000, 0x42, TxnHeader.NO_XID), e.header());
        assertEquals(new Txn.CreateNode("/old", "v".getBytes(StandardCharsets.UTF_8), 0, false, 3), e.txn());

        byte[] set = LegacyPayloads.setData(0x00FF_FFFF_FFFF_FFFFL, 2_000, 0x42, "/old", new byte[] {9}, 1);
        e = TxnCodec.decode(set);
        assertEquals(new TxnHeader(0x00FF_FFFF_FFFF_FFFFL, 2_000, 0x42, TxnHeader.NO_XID), e.header());
        assertEquals(new Txn.SetData("/old", new byte[] {9}, 1), e.txn());

        byte[] session = LegacyPayloads.createSession(8, 3_000, 0x43, 5_000, new byte[] {1, 2});
        assertEquals(new Txn.CreateSession(0x43, 5_000, new byte[] {1, 2}), TxnCodec.decode(session).txn());
    }

    @Test
    void newPayloadsStartWithTheFormatTagAndCarryTheXid() {
        byte[] bytes = TxnCodec.encode(new TxnHeader(5, 6, 7, 8), new Txn.DeleteNode("/a"));
        assertEquals((byte) 0x82, bytes[0]);
        assertEquals(8, TxnCodec.decode(bytes).header().xid());
    }

    @Test
    void anAcknowledgementIsWrittenInFormat3AndOnlyThen() {
        byte[] without = TxnCodec.encode(new TxnHeader(5, 6, 7, 8, TxnHeader.NO_XID), new Txn.DeleteNode("/a"));
        assertEquals((byte) 0x82, without[0], "a txn without an acknowledgement is byte for byte format 2");
        assertArrayEquals(without, TxnCodec.encode(new TxnHeader(5, 6, 7, 8), new Txn.DeleteNode("/a")));
        byte[] with = TxnCodec.encode(new TxnHeader(5, 6, 7, 8, 3), new Txn.DeleteNode("/a"));
        assertEquals((byte) 0x83, with[0]);
        assertEquals(without.length + 4, with.length);
        assertEquals(new TxnHeader(5, 6, 7, 8, 3), TxnCodec.decode(with).header());
    }

    @Test
    void unknownFormatTagIsRejected() {
        byte[] bytes = TxnCodec.encode(new TxnHeader(1, 2, 3, 4), new Txn.DeleteNode("/a"));
        bytes[0] = (byte) 0x84;
        assertThrows(IllegalArgumentException.class, () -> TxnCodec.decode(bytes));
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] bytes = TxnCodec.encode(new TxnHeader(1, 2, 3, 0), new Txn.DeleteNode("/a"));
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(IllegalArgumentException.class, () -> TxnCodec.decode(longer));
    }

    @Provide
    Arbitrary<TxnHeader> headers() {
        // an acknowledgement in a fifth of them (format 3), none in the rest (format 2)
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), Arbitraries.longs(), Arbitraries.integers(),
                Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(TxnHeader.NO_XID)),
                        Tuple.of(1, Arbitraries.integers()))).as(TxnHeader::new);
    }

    static Arbitrary<String> paths() {
        return Arbitraries.strings().withCharRange('a', 'z').withChars('/', 'é', '字').ofMinLength(0).ofMaxLength(20)
                .map(s -> "/" + s);
    }

    static Arbitrary<byte[]> bytes() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(40);
    }

    static Arbitrary<Txn> nodeTxns() {
        return Arbitraries.oneOf(
                Combinators.combine(paths(), bytes(), Arbitraries.longs(), Arbitraries.of(true, false),
                        Arbitraries.integers()).as(Txn.CreateNode::new),
                Combinators.combine(paths(), bytes(), Arbitraries.integers(), Arbitraries.longs().between(1,
                        dev.zkr.client.CreateMode.MAX_TTL_MS)).as((p, d, cv, ttl) ->
                        new Txn.CreateNode(p, d, 0, false, cv, dev.zkr.client.Acls.OPEN_UNSAFE, ttl)),
                paths().map(Txn.DeleteNode::new),
                Combinators.combine(paths(), bytes(), Arbitraries.integers()).as(Txn.SetData::new),
                Combinators.combine(paths(), Arbitraries.integers()).as(Txn.Check::new));
    }

    @Provide
    Arbitrary<Txn> txns() {
        Arbitrary<ZkException.Code> codes = Arbitraries.of(ZkException.Code.class);
        return Arbitraries.frequencyOf(
                Tuple.of(4, nodeTxns()),
                Tuple.of(2, nodeTxns().list().ofMaxSize(5).map(Txn.Multi::new)),
                Tuple.of(1, Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), bytes())
                        .as(Txn.CreateSession::new)),
                Tuple.of(1, Arbitraries.longs().map(Txn.CloseSession::new)),
                Tuple.of(1, Combinators.combine(codes, Arbitraries.oneOf(paths(), Arbitraries.just(null)),
                        codes.list().ofMaxSize(4)).as(Txn.Error::new)),
                Tuple.of(1, Combinators.combine(Arbitraries.longs().between(0, 0xffff_ffffL), Arbitraries.integers())
                        .as(Txn.NewEpoch::new)));
    }

    @Test
    void errorCodesSurviveByIntValue() {
        for (ZkException.Code c : ZkException.Code.values()) {
            Txn t = new Txn.Error(c, null, List.of(c));
            assertEquals(t, TxnCodec.decode(TxnCodec.encode(new TxnHeader(0, 0, 0, 0), t)).txn());
        }
    }

    @Test
    void closeSessionRecordsThatStillListPathsDecodeAndTheTreeDeletesTheSameNodes() throws Exception {
        // the format written before CloseSession became path-free: tag 7, session id, count, paths
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
        out.writeLong(9);
        out.writeLong(1_000);
        out.writeLong(4);
        out.writeByte(7);
        out.writeLong(4);
        out.writeInt(2);
        for (String p : List.of("/a", "/b")) {
            byte[] b = p.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.writeInt(b.length);
            out.write(b);
        }
        TxnCodec.Entry legacy = TxnCodec.decode(bytes.toByteArray());
        assertEquals(new Txn.CloseSession(4), legacy.txn());

        Pipeline p = new Pipeline();
        p.openSession(4);
        p.create(4, "/a", "", dev.zkr.client.CreateMode.EPHEMERAL);
        p.create(4, "/b", "", dev.zkr.client.CreateMode.EPHEMERAL);
        p.tree.apply(new TxnHeader(p.zxid + 1, 2_000, 4, TxnHeader.NO_XID), legacy.txn());
        assertEquals(null, p.tree.exists("/a"));
        assertEquals(null, p.tree.exists("/b"));
        assertEquals(null, p.tree.session(4));
    }

    @Test
    void closeSessionEncodesToTheSameFewBytesHoweverManyEphemerals() {
        Pipeline p = new Pipeline();
        p.openSession(4);
        int emptySize = TxnCodec.encode(new TxnHeader(1, 1, 4, TxnHeader.NO_XID), new Txn.CloseSession(4)).length;
        for (int i = 0; i < 200; i++) {
            p.create(4, "/" + "e".repeat(500) + i, "", dev.zkr.client.CreateMode.EPHEMERAL);
        }
        TxnCodec.Entry close = p.prepareOnly(4, new Request.CloseSession(4));
        assertEquals(emptySize, TxnCodec.encode(close.header(), close.txn()).length);
        p.applyEntry(close);
        assertEquals(1, p.tree.nodeCount());
    }
}
