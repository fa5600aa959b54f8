package dev.zkr.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;

/**
 * The Kryo safety settings shared by every zkr port (clients and peers): registration required, class ids only (no
 * class names read from the wire), no references, and length-checked serializers for {@code String} and
 * {@code byte[]} (id 100). Each port registers its own classes on top with fixed ids (client port 101–199, peer port
 * 200+); ids are never changed or reused, only appended.
 */
public final class SafeKryo {

    private SafeKryo() {
    }

    /** A new Kryo (for one thread) with the safety settings and the shared registrations only. */
    public static Kryo create() {
        Kryo kryo = new Kryo(new WireKryo.IdOnlyClassResolver(), null);
        kryo.setRegistrationRequired(true);
        kryo.setReferences(false);
        kryo.register(String.class, new WireKryo.BoundedStringSerializer());
        kryo.register(byte[].class, new WireKryo.BoundedBytesSerializer(), 100);
        return kryo;
    }

    /**
     * Fails with a {@link KryoException} if a declared element count cannot fit in what is left of the input (each
     * element takes at least one byte), so a hostile length cannot make a serializer allocate more than the frame
     * holds.
     */
    public static void checkLength(Input input, int length) {
        WireKryo.checkLength(input, length);
    }
}
