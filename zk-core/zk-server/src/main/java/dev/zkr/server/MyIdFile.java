package dev.zkr.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * The {@code myid} file of a data directory, ZooKeeper's convention for a server's id: the file holds the number
 * (1..255 in zkr) and nothing else but whitespace.
 */
final class MyIdFile {

    static final String NAME = "myid";
    private static final int MAX_BYTES = 64;

    private MyIdFile() {
    }

    /** The id in {@code dataDir/myid}; empty when there is no such file. A file that is not an id is refused. */
    static OptionalInt read(Path dataDir) {
        Path file = dataDir.resolve(NAME);
        byte[] bytes;
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new IllegalArgumentException(file + " does not hold a server id (" + Files.size(file)
                        + " bytes)");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return OptionalInt.empty();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
        }
        String text = new String(bytes, StandardCharsets.UTF_8).trim();
        int id;
        try {
            id = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + " does not hold a server id: '" + text + "'");
        }
        if (id < 1 || id > 255) {
            throw new IllegalArgumentException(file + " holds server id " + id + ", outside 1..255");
        }
        return OptionalInt.of(id);
    }
}
