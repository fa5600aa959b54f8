package dev.zkr.recipes;

import java.util.Arrays;

/** A member of a {@link GroupMembership}: its id (node name) and its data as last seen. */
public record Member(String id, byte[] data) {

    public Member {
        data = data == null ? new byte[0] : data.clone();
    }

    @Override
    public byte[] data() {
        return data.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Member m && m.id.equals(id) && Arrays.equals(m.data, data);
    }

    @Override
    public int hashCode() {
        return id.hashCode() * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "Member[" + id + ", " + data.length + " bytes]";
    }
}
