package dev.zkr.wire;

/** A frame that does not decode to exactly one valid {@link Message}. */
public final class MalformedMessageException extends RuntimeException {
    public MalformedMessageException(String message) {
        super(message);
    }
}
