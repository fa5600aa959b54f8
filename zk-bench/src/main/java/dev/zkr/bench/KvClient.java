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

    /** Async getData without a watch. */
    void getDataAsync(String path, Callback callback);

    /** Blocking setData at any version. */
    void setData(String path, byte[] data);

    /** Blocking getData, returns the data. */
    byte[] getData(String path);

    /** Blocking create of a PERSISTENT node and its missing parents; an existing node is fine. */
    void ensurePath(String path, byte[] data);

    @Override
    void close();
}
