package dev.zkr.recipes;

import java.util.Arrays;

/** A {@link SharedValue}'s value with the node's data version, for {@link SharedValue#trySet}. */
public record VersionedValue(int version, byte[] value) {

    public VersionedValue {
        value = value.clone();
    }

    @Override
    public byte[] value() {
        return value.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VersionedValue v && v.version == version && Arrays.equals(v.value, value);
    }

    @Override
    public int hashCode() {
        return 31 * version + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "VersionedValue[version=" + version + ", " + value.length + " bytes]";
    }
}
