package dev.zkr.check;

/**
 * An operation's kind and arguments, as a {@link Model} understands them (for example {@link ZnodeCall.SetData}).
 * Implementations are immutable value records; their {@code toString} appears in reports.
 */
public interface Call {
}
