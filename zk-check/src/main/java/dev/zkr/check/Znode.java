package dev.zkr.check;

import java.util.Objects;

/** The state of one znode seen as a versioned register: absent, or present with data and a version. */
public sealed interface Znode {

    /** The node does not exist. */
    Znode ABSENT = new Absent();

    /** No node at the path. */
    record Absent() implements Znode {
        @Override
        public String toString() {
            return "absent";
        }
    }

    /**
     * A node with its data (callers encode bytes as a string, e.g. UTF-8 or hex) and its data version
     * (0 after create, +1 per setData).
     */
    record Present(String data, int version) implements Znode {
        public Present {
            Objects.requireNonNull(data, "data");
        }

        @Override
        public String toString() {
            return "'" + data + "'@v" + version;
        }
    }

    /** A present node. */
    static Znode present(String data, int version) {
        return new Present(data, version);
    }
}
