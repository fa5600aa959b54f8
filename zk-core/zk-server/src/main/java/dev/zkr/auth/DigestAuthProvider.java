package dev.zkr.auth;

import dev.zkr.client.Acls;
import dev.zkr.client.Id;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The {@code digest} scheme, as ZooKeeper's {@code DigestAuthenticationProvider}: {@code user:password} becomes the
 * id {@code user:base64(sha1(user:password))}; a wrong password simply yields another id (which ACLs then refuse).
 * If the digest equals the configured super digest, the connection also gets {@code super:} and passes every ACL.
 * zkr refuses (AUTH_FAILED) bytes without a {@code :}, which ZooKeeper would accept as a user without password.
 */
public final class DigestAuthProvider implements AuthProvider {

    /** The id scheme that passes every ACL check. */
    public static final Id SUPER = new Id("super", "");

    private final String superDigest;

    /** @param superDigest {@code super:<base64 sha1>} as ZooKeeper's {@code superDigest}, or null for none */
    public DigestAuthProvider(String superDigest) {
        this.superDigest = superDigest;
    }

    @Override
    public String scheme() {
        return "digest";
    }

    @Override
    public List<Id> authenticate(ClientInfo client, byte[] auth) {
        String userPassword = new String(auth, StandardCharsets.UTF_8);
        if (userPassword.indexOf(':') <= 0) {
            return List.of();
        }
        String digest = Acls.generateDigest(userPassword);
        Id id = new Id("digest", digest);
        return digest.equals(superDigest) ? List.of(SUPER, id) : List.of(id);
    }

    @Override
    public boolean matches(String id, String aclExpr) {
        return id.equals(aclExpr);
    }

    @Override
    public boolean isValid(String aclExpr) {
        return aclExpr != null && aclExpr.split(":").length == 2;
    }

    /** The user part of {@code user:base64(sha1)}, as ZooKeeper's {@code getUserName}. */
    @Override
    public String userName(String id) {
        int colon = id.indexOf(':');
        return colon < 0 ? id : id.substring(0, colon);
    }
}
