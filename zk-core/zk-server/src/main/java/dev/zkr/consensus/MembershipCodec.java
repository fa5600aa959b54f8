package dev.zkr.consensus;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * How a log's records carry a {@link Membership} (the record format belongs to the log, so the driver supplies it
 * through {@link LogView#membershipCodec()}). {@link #RAW} is the consensus package's own format; {@link #NONE} says
 * the log holds no membership records (its members are the static ones).
 */
public interface MembershipCodec {
    /** The payload of a membership record. */
    byte[] encode(Membership m);

    /** The membership a record's payload carries, or null if it is not a membership record. */
    Membership decode(byte[] payload);

    /** "ZKRM", a version byte, then the voters and the learners, each as a count and the ids (big-endian ints). */
    MembershipCodec RAW = new MembershipCodec() {
        private static final int MAGIC = 0x5a4b524d; // "ZKRM"
        private static final byte VERSION = 1;

        @Override
        public byte[] encode(Membership m) {
            ByteBuffer b = ByteBuffer.allocate(4 + 1 + 4 * (2 + m.voters().size() + m.learners().size()));
            b.putInt(MAGIC).put(VERSION);
            b.putInt(m.voters().size());
            m.voters().forEach(b::putInt);
            b.putInt(m.learners().size());
            m.learners().forEach(b::putInt);
            return b.array();
        }

        @Override
        public Membership decode(byte[] payload) {
            if (payload.length < 13 || ByteBuffer.wrap(payload).getInt() != MAGIC || payload[4] != VERSION) {
                return null;
            }
            ByteBuffer b = ByteBuffer.wrap(payload, 5, payload.length - 5);
            List<Integer> voters = ids(b);
            List<Integer> learners = ids(b);
            if (b.hasRemaining()) {
                throw new IllegalArgumentException("membership record with trailing bytes");
            }
            return new Membership(voters, learners);
        }

        private List<Integer> ids(ByteBuffer b) {
            int n = b.getInt();
            if (n < 0 || n > b.remaining() / 4) {
                throw new IllegalArgumentException("membership record with a bad count " + n);
            }
            List<Integer> ids = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                ids.add(b.getInt());
            }
            return ids;
        }
    };

    /** A log without membership records: nothing decodes, and proposing a change is refused. */
    MembershipCodec NONE = new MembershipCodec() {
        @Override
        public byte[] encode(Membership m) {
            throw new UnsupportedOperationException("this log does not carry membership records");
        }

        @Override
        public Membership decode(byte[] payload) {
            return null;
        }
    };
}
