package dev.zkr.auth;

import dev.zkr.client.Id;

import java.util.List;

/**
 * The {@code x509} scheme, as ZooKeeper's {@code X509AuthenticationProvider}: a connection whose TLS client
 * certificate was verified holds {@code x509:<subject>} from its first request on, the subject being the
 * certificate's X.500 name in RFC 2253 form ({@code CN=alice,OU=ops,O=example}); an ACL id of this scheme matches
 * that name exactly. A client cannot claim the scheme with {@code addAuthInfo}: without a certificate it gets
 * AUTH_FAILED, with one it gains nothing new (as in ZooKeeper). If the subject equals the configured super user
 * ({@code ssl.x509SuperUser}, ZooKeeper's {@code zookeeper.X509AuthenticationProvider.superUser}), the connection
 * also holds {@code super:} and passes every ACL.
 */
public final class X509AuthProvider implements AuthProvider {

    /** The scheme name. */
    public static final String SCHEME = "x509";

    private final String superUser;

    /** @param superUser the subject (RFC 2253) that is super user, or null for none */
    public X509AuthProvider(String superUser) {
        this.superUser = superUser == null || superUser.isBlank() ? null : superUser;
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    /** The ids of the client's verified certificate; none (refused) without one. The bytes are ignored. */
    @Override
    public List<Id> authenticate(ClientInfo client, byte[] auth) {
        String subject = client.certificateSubject();
        if (subject == null || subject.isEmpty()) {
            return List.of();
        }
        Id id = new Id(SCHEME, subject);
        return subject.equals(superUser) ? List.of(DigestAuthProvider.SUPER, id) : List.of(id);
    }

    @Override
    public boolean matches(String id, String aclExpr) {
        return id.equals(aclExpr);
    }
}
