package dev.zkr.server.peer;

/** Test access to the peer port's encoding, to build well-formed and broken peer frames by hand. */
public final class PeerBytes {

    private PeerBytes() {
    }

    /** The Kryo body of a peer message (without the length prefix). */
    public static byte[] encode(Object message) {
        return PeerKryo.CODEC.encode(message);
    }
}
