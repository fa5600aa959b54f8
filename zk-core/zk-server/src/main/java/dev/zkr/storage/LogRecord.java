package dev.zkr.storage;

/** One record of the transaction log: the zxid and the opaque payload (an encoded txn). */
public record LogRecord(long zxid, byte[] payload) {
}
