package dev.zkr.bench;

/**
 * The handful of znode operations the server scenarios drive, over one session. Implemented on the stock Apache
 * ZooKeeper client and on the native zkr client so both servers get the same load from this JVM.
 */
interface KvClient extends AutoCloseable {

    /** Completion of an async operation: {@code error} is null on success. Must not block. */
    @FunctionalInterface
    interface Callback {
        void done(Throwable error);
    }

    /** Async create, PERSISTENT or PERSISTENT_SEQUENTIAL. */
    void createAsync(String path, byte[] data, boolean sequential, Callback callback);

    /** Async getData without a watch; a reply whose data is not {@code expectedLength} bytes long is an error. */
    void getDataAsync(String path, int expectedLength, Callback callback);

    /** Blocking: the number of children of the node (from its Stat), to check what a load really wrote. */
    int childCount(String path);

    /** Async setData at any version. */
    void setDataAsync(String path, byte[] data, Callback callback);

    /** Blocking setData at any version. */
    void setData(String path, byte[] data);

    /** Blocking getData, returns the data. */
    byte[] getData(String path);

    /** Blocking create of a PERSISTENT node and its missing parents; an existing node is fine. */
    void ensurePath(String path, byte[] data);

    /** Blocking delete at any version. */
    void delete(String path);

    /**
     * Blocking exists with a one-shot watch; {@code onDeleted} runs (on the client's event thread) when the node is
     * deleted. Returns false, setting no watch, if the node does not exist.
     */
    boolean watchDeletion(String path, Runnable onDeleted);

    @Override
    void close();

    /** Null if the data has the expected length, else the error to report. */
    static Throwable checkLength(String path, byte[] data, int expectedLength) {
        int n = data == null ? -1 : data.length;
        return n == expectedLength ? null
                : new IllegalStateException("read " + n + " bytes from " + path + ", expected " + expectedLength);
    }
}
