package dev.zkr.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;

/** Common ACLs and ids, as ZooKeeper's {@code ZooDefs.Ids}, and the digest of the {@code digest} scheme. */
public final class Acls {
    /** Everyone: {@code world:anyone}. */
    public static final Id ANYONE_ID_UNSAFE = new Id("world", "anyone");
    /** In a create or setAcl: every id the session has authenticated as ({@code auth:}). */
    public static final Id AUTH_IDS = new Id("auth", "");
    /** Anyone may do anything (what {@code create} without an ACL uses). */
    public static final List<Acl> OPEN_UNSAFE = List.of(new Acl(Perms.ALL, ANYONE_ID_UNSAFE));
    /** All permissions for the ids the creating session authenticated as (fails InvalidAcl without any). */
    public static final List<Acl> CREATOR_ALL = List.of(new Acl(Perms.ALL, AUTH_IDS));
    /** Anyone may read. */
    public static final List<Acl> READ_ONLY = List.of(new Acl(Perms.READ, ANYONE_ID_UNSAFE));

    private Acls() {
    }

    /**
     * The stored form of a digest identity, exactly as ZooKeeper's
     * {@code DigestAuthenticationProvider.generateDigest}: {@code user:base64(sha1("user:password"))}.
     */
    public static String generateDigest(String userColonPassword) {
        String user = userColonPassword.split(":", 2)[0];
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA1")
                    .digest(userColonPassword.getBytes(StandardCharsets.UTF_8));
            return user + ":" + Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA1 in this JVM", e);
        }
    }

    /** The {@code digest} id of this user and password. */
    public static Id digest(String user, String password) {
        return new Id("digest", generateDigest(user + ":" + password));
    }
}
