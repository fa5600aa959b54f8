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
        byte[] bytes = TxnCodec.encode(new TxnHeader(1, 2, 3), txn);
        bytes[Math.floorMod(position, bytes.length)] = value;
        try {
            TxnCodec.decode(bytes);
        } catch (IllegalArgumentException expected) {
            // fine: typed failure, no other exception type, no huge allocation
        }
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] bytes = TxnCodec.encode(new TxnHeader(1, 2, 3), new Txn.DeleteNode("/a"));
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(IllegalArgumentException.class, () -> TxnCodec.decode(longer));
    }

    @Provide
    Arbitrary<TxnHeader> headers() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), Arbitraries.longs()).as(TxnHeader::new);
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
                Tuple.of(1, Combinators.combine(Arbitraries.longs(), paths().list().ofMaxSize(4))
                        .as(Txn.CloseSession::new)),
                Tuple.of(1, Combinators.combine(codes, Arbitraries.oneOf(paths(), Arbitraries.just(null)),
                        codes.list().ofMaxSize(4)).as(Txn.Error::new)));
    }

    @Test
    void errorCodesSurviveByIntValue() {
        for (ZkException.Code c : ZkException.Code.values()) {
            Txn t = new Txn.Error(c, null, List.of(c));
            assertEquals(t, TxnCodec.decode(TxnCodec.encode(new TxnHeader(0, 0, 0), t)).txn());
        }
    }
}
