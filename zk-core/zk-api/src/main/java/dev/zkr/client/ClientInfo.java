package dev.zkr.client;

/**
 * One identity the server holds for this client's connection ({@link ZkClient#whoAmI}), as ZooKeeper's
 * {@code ClientInfo}: the scheme ({@code ip}, {@code digest}, {@code x509}, {@code super}, ...) and the user the
 * scheme names (for {@code digest} the user part of {@code user:hash}; for a scheme the server has no provider for,
 * such as {@code super}, the empty string).
 */
public record ClientInfo(String authScheme, String user) {
}
