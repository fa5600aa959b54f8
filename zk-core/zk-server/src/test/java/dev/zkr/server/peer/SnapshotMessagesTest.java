package dev.zkr.server.peer;

import dev.zkr.storage.SnapshotSender;
import dev.zkr.wire.KryoCodec;
import dev.zkr.wire.MalformedMessageException;
import dev.zkr.wire.SafeKryo;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The SNAP transfer messages on the peer port (ids 250, 251). */
class SnapshotMessagesTest {

    /** Same shape as {@link SnapshotChunk}, without its checks: what a hostile or buggy peer could send. */
    record LooseChunk(long zxid, long offset, byte[] data, boolean last) {
    }

    @Test
    void aRequestAndAFullChunkRoundTripWithinTheFrameLimit() {
        SnapshotRequest request = new SnapshotRequest(0x5_0000_0007L, 1 << 20);
        assertEquals(request, PeerKryo.CODEC.decode(PeerKryo.CODEC.encode(request)));

        byte[] data = new byte[SnapshotChunk.MAX_DATA];
        Arrays.fill(data, (byte) 0x5a);
        data[0] = 1;
        SnapshotChunk chunk = new SnapshotChunk(0x5_0000_0007L, 3L * SnapshotChunk.MAX_DATA, data, true);
        byte[] frame = PeerKryo.CODEC.encode(chunk);
        assertTrue(frame.length < PeerConfig.DEFAULT_MAX_FRAME_SIZE, frame.length + " bytes");
        SnapshotChunk decoded = (SnapshotChunk) PeerKryo.CODEC.decode(frame);
        assertEquals(chunk.zxid(), decoded.zxid());
        assertEquals(chunk.offset(), decoded.offset());
        assertArrayEquals(data, decoded.data());
        assertTrue(decoded.last());
        assertEquals(SnapshotSender.CHUNK_BYTES, SnapshotChunk.MAX_DATA, "the sender's chunks fit in a message");
    }

    @Test
    void badValuesAreRefusedWhenBuiltAndWhenDecoded() {
        assertThrows(IllegalArgumentException.class, () -> new SnapshotRequest(0, 0));
        assertThrows(IllegalArgumentException.class, () -> new SnapshotRequest(7, -1));
        assertThrows(IllegalArgumentException.class, () -> new SnapshotChunk(7, 0, null, true));
        assertThrows(IllegalArgumentException.class, () -> new SnapshotChunk(7, -3, new byte[1], true));
        assertThrows(IllegalArgumentException.class,
                () -> new SnapshotChunk(7, 0, new byte[SnapshotChunk.MAX_DATA + 1], false));

        KryoCodec<Object> loose = new KryoCodec<>(() -> {
            var kryo = SafeKryo.create();
            kryo.register(LooseChunk.class, 251);
            return kryo;
        }, Object.class);
        // the look-alike encodes like the real one: a good one decodes, bad ones are malformed frames
        SnapshotChunk good = (SnapshotChunk) PeerKryo.CODEC.decode(loose.encode(new LooseChunk(7, 5, new byte[3],
                false)));
        assertEquals(5, good.offset());
        assertThrows(MalformedMessageException.class,
                () -> PeerKryo.CODEC.decode(loose.encode(new LooseChunk(7, -5, new byte[3], false))));
        assertThrows(MalformedMessageException.class,
                () -> PeerKryo.CODEC.decode(loose.encode(new LooseChunk(7, 0, null, true))));
    }
}
