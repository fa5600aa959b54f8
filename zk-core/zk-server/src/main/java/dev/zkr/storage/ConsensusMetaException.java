package dev.zkr.storage;

/**
 * {@code consensus.meta} is damaged, or missing next to a non-empty log: the server must not start, since it could
 * vote twice in one epoch. An operator restores the file or wipes the data directory.
 */
public class ConsensusMetaException extends StorageException {

    public ConsensusMetaException(String message) {
        super(message);
    }
}
