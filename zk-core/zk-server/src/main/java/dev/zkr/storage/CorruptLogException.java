package dev.zkr.storage;

/**
 * The transaction log holds damaged data that is not a torn tail: corruption in the middle of the log (followed by
 * valid records, or in an older segment), a bad segment header, or a gap between segments. Acknowledged data may be
 * lost, so zkr refuses to continue silently; an operator has to look at the named file.
 */
public class CorruptLogException extends StorageException {

    public CorruptLogException(String message) {
        super(message);
    }
}
