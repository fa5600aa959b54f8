package dev.zkr.consensus;

/**
 * The answer to {@link Replica#readIndex}: a read with context {@code ctx} may be served once the caller has applied
 * at least {@code readZxid}. {@code readZxid == Zxid.NONE} means refused (not an in-service leader, or leadership
 * lost before a quorum confirmed it): retry elsewhere.
 */
public record ReadState(long ctx, long readZxid) {
    public boolean refused() {
        return readZxid == Zxid.NONE;
    }
}
