package dev.zkr.server.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The four-letter words ZooKeeper 3.9 knows on its client port, each read as the big-endian int of its 4 ASCII bytes
 * in the place of a first frame's length (ZooKeeper's {@code FourLetterCommands}), plus the telnet close sequence
 * it also treats as one. Knowing a word is not serving it: whitelist and answers are the port's.
 */
final class FourLetterWords {

    /** What telnet sends on Ctrl-C (IAC IP IAC DO), which ZooKeeper counts among the words ("telnet close"). */
    static final int TELNET_CLOSE = 0xfff4fffd;

    /** The words, in ZooKeeper's order. */
    static final java.util.List<String> WORDS = java.util.List.of("conf", "cons", "crst", "dirs", "dump", "envi",
            "gtmk", "ruok", "stmk", "srst", "srvr", "stat", "wchc", "wchp", "wchs", "mntr", "isro", "hash");

    private static final Map<Integer, String> BY_INT = Stream.concat(
            WORDS.stream().map(w -> Map.entry(asInt(w), w)),
            Stream.of(Map.entry(TELNET_CLOSE, "telnet close")))
            .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue));

    private FourLetterWords() {
    }

    /** The word these 4 bytes spell (as an int, big-endian), or null if ZooKeeper knows none such. */
    static String word(int firstInt) {
        return BY_INT.get(firstInt);
    }

    static int asInt(String word) {
        byte[] b = word.getBytes(StandardCharsets.US_ASCII);
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
    }
}
