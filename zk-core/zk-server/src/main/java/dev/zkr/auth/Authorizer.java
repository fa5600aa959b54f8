package dev.zkr.auth;

import dev.zkr.client.Acl;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The ACL rules of ZooKeeper's {@code checkACL} and {@code fixupACL}, over the server's {@link AuthProvider}s:
 * whether a connection's ids grant a permission on a node, and the ACL a create or setAcl stores. Pure and
 * thread-safe (the providers are).
 */
public final class Authorizer {

    private final Map<String, AuthProvider> providers;

    /** The built-in schemes ({@code digest} and {@code x509} without super user, {@code ip}). */
    public static Authorizer defaults() {
        return new Authorizer(List.of(new DigestAuthProvider(null), new IpAuthProvider(), new X509AuthProvider(null)));
    }

    /** These providers, by scheme (a later one replaces an earlier one of the same scheme). */
    public Authorizer(Collection<AuthProvider> providers) {
        Map<String, AuthProvider> m = new LinkedHashMap<>();
        for (AuthProvider p : providers) {
            String scheme = p.scheme();
            if ("world".equals(scheme) || "auth".equals(scheme) || "super".equals(scheme)) {
                throw new IllegalArgumentException("scheme " + scheme + " is reserved");
            }
            m.put(scheme, p);
        }
        this.providers = Map.copyOf(m);
    }

    /** The provider of a scheme, or null. */
    public AuthProvider provider(String scheme) {
        return scheme == null ? null : providers.get(scheme);
    }

    /**
     * Whether {@code ids} may use {@code perm} on a node with this ACL: the super id passes everything; otherwise
     * an entry granting any bit of {@code perm} must be {@code world:anyone} or match one of the ids of its scheme.
     */
    public boolean allowed(List<Acl> acl, int perm, List<Id> ids) {
        if (acl == null || acl.isEmpty()) {
            return true;
        }
        for (Id id : ids) {
            if ("super".equals(id.scheme())) {
                return true;
            }
        }
        for (Acl a : acl) {
            if ((a.perms() & perm) == 0) {
                continue;
            }
            Id aclId = a.id();
            if ("world".equals(aclId.scheme()) && "anyone".equals(aclId.id())) {
                return true;
            }
            AuthProvider p = provider(aclId.scheme());
            if (p != null) {
                for (Id id : ids) {
                    if (id.scheme().equals(aclId.scheme()) && p.matches(id.id(), aclId.id())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * The ACL to store for a create or setAcl (ZooKeeper's fixupACL): duplicates removed, {@code auth:} expanded to
     * every authenticated id of the session (ids of providers whose {@link AuthProvider#isAuthenticated()}), every
     * other id validated by its scheme's provider. Throws {@link InvalidAcl} for an empty list, unknown permission
     * bits (zkr's addition), an unknown scheme, a malformed id, or {@code auth:} when the session has no such id.
     */
    public List<Acl> fixup(List<Acl> acls, List<Id> ids) throws InvalidAcl {
        if (acls == null || acls.isEmpty()) {
            throw new InvalidAcl("empty ACL");
        }
        LinkedHashSet<Acl> out = new LinkedHashSet<>();
        for (Acl a : new LinkedHashSet<>(acls)) {
            if (a == null || a.id() == null) {
                throw new InvalidAcl("null ACL entry");
            }
            if (!Perms.isValid(a.perms())) {
                throw new InvalidAcl("permission bits " + a.perms() + " are not a non-empty subset of ALL (31)");
            }
            Id id = a.id();
            if ("world".equals(id.scheme()) && "anyone".equals(id.id())) {
                out.add(a);
            } else if ("auth".equals(id.scheme())) {
                boolean any = false;
                for (Id mine : ids) {
                    AuthProvider p = provider(mine.scheme());
                    if (p != null && p.isAuthenticated()) {
                        any = true;
                        out.add(new Acl(a.perms(), mine));
                    }
                }
                if (!any) {
                    throw new InvalidAcl("auth: the session has no authenticated id");
                }
            } else {
                AuthProvider p = provider(id.scheme());
                if (p == null) {
                    throw new InvalidAcl("unknown scheme " + id.scheme());
                }
                if (!p.isValid(id.id())) {
                    throw new InvalidAcl("malformed " + id.scheme() + " id");
                }
                out.add(a);
            }
        }
        return List.copyOf(out);
    }

    /**
     * The ids a connection gains by authenticating with this scheme, or an empty list if refused (unknown scheme,
     * the provider refused or failed).
     */
    public List<Id> authenticate(String scheme, AuthProvider.ClientInfo client, byte[] auth) {
        AuthProvider p = scheme == null ? null : providers.get(scheme);
        if (p == null) {
            return List.of();
        }
        try {
            List<Id> ids = p.authenticate(client, auth == null ? new byte[0] : auth);
            return ids == null ? List.of() : new ArrayList<>(ids);
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /** The ACL as a session without ADMIN sees it: digest hashes masked ({@code user:x}), as ZooKeeper does. */
    public static List<Acl> masked(List<Acl> acl) {
        List<Acl> out = new ArrayList<>(acl.size());
        for (Acl a : acl) {
            if ("digest".equals(a.id().scheme())) {
                out.add(new Acl(a.perms(), new Id("digest", a.id().id().replaceAll(":.*", ":x"))));
            } else {
                out.add(a);
            }
        }
        return out;
    }

    /** A malformed ACL (the request fails with INVALID_ACL; no stack trace). */
    public static final class InvalidAcl extends Exception {
        public InvalidAcl(String message) {
            super(message, null, false, false);
        }
    }
}
