package dev.zkr.recipes;

/** Turns queue items into node data and back. */
public interface QueueSerializer<T> {

    byte[] serialize(T item);

    T deserialize(byte[] data);

    /** The identity serializer of byte[] items. */
    QueueSerializer<byte[]> BYTES = new QueueSerializer<>() {
        @Override
        public byte[] serialize(byte[] item) {
            return item;
        }

        @Override
        public byte[] deserialize(byte[] data) {
            return data;
        }
    };
}
