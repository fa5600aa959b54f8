package dev.zkr.check;

import java.util.Objects;

/** The operations on one znode. An expected version of {@code -1} means any version. */
public sealed interface ZnodeCall extends Call {

    /** {@code create(path, data)}: ok leaves {@code data@v0}; fails with NodeExists when present. */
    record Create(String data) implements ZnodeCall {
        public Create {
            Objects.requireNonNull(data, "data");
        }

        @Override
        public String toString() {
            return "create('" + data + "')";
        }
    }

    /** {@code setData(path, data, version)}: ok returns the new version; BadVersion; NoNode. */
    record SetData(String data, int expectedVersion) implements ZnodeCall {
        public SetData {
            Objects.requireNonNull(data, "data");
        }

        @Override
        public String toString() {
            return "setData('" + data + "', " + expectedVersion + ")";
        }
    }

    /** {@code delete(path, version)}: ok leaves the node absent; BadVersion; NoNode. */
    record Delete(int expectedVersion) implements ZnodeCall {
        @Override
        public String toString() {
            return "delete(" + expectedVersion + ")";
        }
    }

    /** A linearizable read ({@code sync} then {@code getData}): returns the node, or absent (or NoNode). */
    record Read() implements ZnodeCall {
        @Override
        public String toString() {
            return "read";
        }
    }

    /** A version check ({@code multi} with one {@code check} op): ok when present at that version. */
    record CheckVersion(int expectedVersion) implements ZnodeCall {
        @Override
        public String toString() {
            return "check(" + expectedVersion + ")";
        }
    }
}
