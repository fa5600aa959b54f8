package dev.zkr.server.zookeeper;

import io.netty.buffer.ByteBuf;

/**
 * Tells, from the first bytes of a client connection (after TLS, if any, is taken off), which protocol it speaks.
 * The rule, exact for every client of either protocol:
 * <ol>
 *   <li>the first 4 bytes spell a four-letter word ZooKeeper knows ({@code ruok}, {@code mntr}, ...):
 *       {@link Kind#FOUR_LETTER_WORD};</li>
 *   <li>else, if byte 0 is not 0: {@link Kind#NATIVE} (no handshake frame of either protocol reaches 16 MiB, so its
 *       length's first byte is 0);</li>
 *   <li>else byte 4, the first byte of the frame: 0 is {@link Kind#ZOOKEEPER} (a ConnectRequest starts with its
 *       protocolVersion, which every ZooKeeper client sends as 0); anything else is {@link Kind#NATIVE} (zkr's
 *       frame starts with a Kryo class id, written as the id + 2, a var-int whose first byte is never 0: 0 would be
 *       a null message, which zkr never sends).</li>
 * </ol>
 * Everything that is not ZooKeeper's or a four-letter word goes to the native codec, which handles it exactly as
 * before. The TLS detection that runs first ({@code TlsRecords}) needs byte 0 in 20..23, which none of the three
 * can start with (0, 0, or a lowercase letter / 0xff). Reads without consuming.
 */
public final class FirstFrame {

    /** What the first bytes say. */
    public enum Kind {
        /** Not enough bytes yet: call again when more arrive. */
        NEED_MORE,
        /** A ZooKeeper client's ConnectRequest frame. */
        ZOOKEEPER,
        /** One of ZooKeeper's four-letter words ({@link #fourLetterWord(ByteBuf)} says which). */
        FOUR_LETTER_WORD,
        /** Anything else: zkr's own protocol (whose codec refuses what is not). */
        NATIVE
    }

    /** Bytes that always suffice to decide. */
    public static final int DECISIVE = 5;

    private FirstFrame() {
    }

    /** Classifies the readable bytes of a connection's start; consumes nothing. */
    public static Kind classify(ByteBuf in) {
        int n = in.readableBytes();
        if (n < 4) {
            return Kind.NEED_MORE;
        }
        int i = in.readerIndex();
        if (FourLetterWords.word(in.getInt(i)) != null) {
            return Kind.FOUR_LETTER_WORD;
        }
        if (in.getByte(i) != 0) {
            return Kind.NATIVE;
        }
        if (n < DECISIVE) {
            return Kind.NEED_MORE;
        }
        return in.getByte(i + 4) == 0 ? Kind.ZOOKEEPER : Kind.NATIVE;
    }

    /** Every four-letter word ZooKeeper 3.9 knows (without telnet's close sequence), sorted. */
    public static java.util.SortedSet<String> knownWords() {
        return java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(FourLetterWords.WORDS));
    }

    /** The four-letter word the first 4 readable bytes spell, or null. */
    public static String fourLetterWord(ByteBuf in) {
        return in.readableBytes() < 4 ? null : FourLetterWords.word(in.getInt(in.readerIndex()));
    }
}
