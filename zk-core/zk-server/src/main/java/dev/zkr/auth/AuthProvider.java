package dev.zkr.auth;

import dev.zkr.client.Id;

import java.util.List;

/**
 * An authentication scheme of the server (ZooKeeper's {@code AuthenticationProvider}): it turns what a client sends
 * with {@code addAuthInfo(scheme, bytes)} into the ids its connection holds, and decides whether such an id matches
 * the id of an ACL entry of its scheme. {@code digest}, {@code ip} and {@code x509} are built in; register more in
 * {@code ServerConfig.builder().authProvider(...)}. Implementations must be thread-safe, fast and not block (they
 * run on the server's request thread).
 */
public interface AuthProvider {

    /** The scheme name, as in ACL ids ({@code scheme:id}). */
    String scheme();

    /**
     * The ids the connection gains, or an empty list (or null) to refuse: the client then gets AUTH_FAILED. A
     * runtime exception is a refusal too. Never log the bytes: they are a secret.
     */
    List<Id> authenticate(ClientInfo client, byte[] auth);

    /** Whether the authenticated id {@code id} (of this scheme) matches the ACL entry's id {@code aclExpr}. */
    boolean matches(String id, String aclExpr);

    /** Whether {@code aclExpr} is a well-formed ACL id of this scheme (else create/setAcl fail with InvalidAcl). */
    default boolean isValid(String aclExpr) {
        return aclExpr != null && !aclExpr.isEmpty();
    }

    /**
     * Whether ids of this scheme count as authenticated identities for the {@code auth} ACL scheme (ZooKeeper's
     * {@code isAuthenticated}: true for digest, false for ip).
     */
    default boolean isAuthenticated() {
        return true;
    }

    /**
     * The user an authenticated id of this scheme names, for {@code whoAmI} (ZooKeeper's {@code getUserName}): the
     * id itself unless the scheme says otherwise ({@code digest}: the user part of {@code user:hash}).
     */
    default String userName(String id) {
        return id;
    }

    /**
     * What the server knows of the client that authenticates: its address (or null) and the subject (RFC 2253) of
     * its verified TLS client certificate (or null).
     */
    record ClientInfo(String remoteAddress, String certificateSubject) {
        /** A client without a certificate. */
        public ClientInfo(String remoteAddress) {
            this(remoteAddress, null);
        }
    }
}
