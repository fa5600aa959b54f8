package dev.zkr.server.admin;

import dev.zkr.server.ServerConfig;
import dev.zkr.auth.AuthAttempts;
import dev.zkr.auth.AuthProvider;
import dev.zkr.auth.Authorizer;
import dev.zkr.auth.DigestAuthProvider;
import dev.zkr.auth.X509AuthProvider;
import dev.zkr.client.Acl;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who an admin endpoint request is, and what it may see beyond what ACLs decide. A request is a session of its own
 * whose ids are {@code ip:<remote address>}, plus {@code x509:<subject>} when the admin port runs TLS and the client
 * presented a verified certificate, plus {@code digest:<user>:<hash>} when it carries HTTP Basic credentials (the
 * same id {@code addauth digest user:pw} gives on the client port), plus {@code super:} where the server's super
 * digest or x509 super user matches. {@code world:anyone} is granted by every ACL check.
 *
 * <p>The admin-only views (sessions, watches, the recipe scan) need an id that {@code admin.auth} names (or the
 * super user); with no {@code admin.auth}, the super user when one is configured, else any client on loopback.
 *
 * <p>Guessing costs time as on the client port ({@link AuthAttempts}, per client address): a request whose
 * credentials did not get it what it asked for is a refused attempt, and once the free ones are spent a request
 * carrying credentials waits out the doubling wait (429, not evaluated). A success does not clear the count (so one
 * valid account cannot launder guesses between its own requests); an address is forgotten {@link #FORGET_NANOS}
 * after its last refusal. Runs on the admin endpoint's one thread.
 */
final class AdminAuth {

    /** Client addresses whose refused attempts are remembered (the oldest is forgotten first). */
    static final int MAX_ADDRESSES = 4_096;
    /** An address without a refusal for this long starts afresh. */
    static final long FORGET_NANOS = 60_000_000_000L;
    /** Longest Authorization header value evaluated (the HTTP codec bounds headers at 8 KiB anyway). */
    static final int MAX_CREDENTIALS_CHARS = 1_024;

    private final Authorizer authorizer;
    /** The ids {@code admin.auth} names, as an ACL granting READ; null: the default rule. */
    private final List<Acl> adminAcl;
    private final boolean superConfigured;
    /** An address's refused attempts and when the last one was. */
    private static final class Refusals {
        final AuthAttempts attempts = new AuthAttempts();
        long last;
    }

    private final Map<String, Refusals> attempts = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Refusals> eldest) {
            return size() > MAX_ADDRESSES;
        }
    };

    AdminAuth(ServerConfig config) {
        this.authorizer = config.authorizer();
        List<Id> named = config.adminAuth();
        List<Acl> acl = null;
        if (named != null && !named.isEmpty()) {
            acl = new ArrayList<>();
            for (Id id : named) {
                acl.add(new Acl(Perms.READ, id));
            }
        }
        this.adminAcl = acl;
        this.superConfigured = config.superDigest() != null || config.x509SuperUser() != null;
    }

    /**
     * One request's caller: its address, its ids and whether it sent credentials. {@code user} is the Basic user
     * name (for log lines; never the password), or null.
     */
    record Caller(String address, boolean loopback, List<Id> ids, boolean credentials, String user) {
    }

    /** Malformed credentials (400; the message says what, never what was sent). */
    static final class BadCredentials extends Exception {
        BadCredentials(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The caller of a request from {@code remote} with this {@code Authorization} header (or null) and this verified
     * client certificate subject (or null).
     */
    Caller caller(SocketAddress remote, String authorization, String certificateSubject) throws BadCredentials {
        String address = null;
        boolean loopback = false;
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            InetAddress a = inet.getAddress();
            address = a.getHostAddress();
            loopback = a.isLoopbackAddress();
        }
        List<Id> ids = new ArrayList<>();
        if (address != null) {
            ids.add(new Id("ip", address));
        }
        AuthProvider.ClientInfo client = new AuthProvider.ClientInfo(address, certificateSubject);
        if (certificateSubject != null) {
            addAll(ids, authorizer.authenticate(X509AuthProvider.SCHEME, client, null));
        }
        String user = null;
        if (authorization != null) {
            byte[] userPassword = basic(authorization);
            String s = new String(userPassword, StandardCharsets.UTF_8);
            user = s.substring(0, s.indexOf(':'));
            List<Id> digest = authorizer.authenticate("digest", client, userPassword);
            java.util.Arrays.fill(userPassword, (byte) 0);
            if (digest.isEmpty()) {
                throw new BadCredentials("the digest scheme refused the Basic credentials");
            }
            addAll(ids, digest);
        }
        return new Caller(address, loopback, List.copyOf(ids), authorization != null, user);
    }

    /** Whether the caller may see the admin-only views. */
    boolean admin(Caller c) {
        if (c.ids().contains(DigestAuthProvider.SUPER)) {
            return true;
        }
        if (adminAcl != null) {
            return authorizer.allowed(adminAcl, Perms.READ, c.ids());
        }
        return !superConfigured && c.loopback();
    }

    /** What configures the admin-only views, for a refusal's message. */
    String adminRule() {
        if (adminAcl != null) {
            return "an identity admin.auth names";
        }
        return superConfigured ? "the super user (admin.auth is not set)"
                : "a client on loopback (admin.auth is not set and no super user is configured)";
    }

    /** True when the admin-only views follow the loopback-only default (no admin.auth, no super user). */
    boolean adminNeedsLoopback() {
        return adminAcl == null && !superConfigured;
    }

    /** Nanoseconds the caller's address must wait before its credentials are evaluated again; 0 or less: none. */
    long waitNanos(Caller c, long now) {
        Refusals r = c.address() == null ? null : attempts.get(c.address());
        if (r != null && now - r.last > FORGET_NANOS) {
            attempts.remove(c.address());
            return 0;
        }
        return r == null ? 0 : r.attempts.waitNanos(now);
    }

    /** The caller's credentials did not get it what it asked for (nothing is counted for a caller without any). */
    void refused(Caller c, long now) {
        if (c.credentials() && c.address() != null) {
            Refusals r = attempts.computeIfAbsent(c.address(), k -> new Refusals());
            r.attempts.refused(now);
            r.last = now;
        }
    }

    /** Refused attempts remembered for this address (tests). */
    int failures(String address) {
        Refusals r = attempts.get(address);
        return r == null ? 0 : r.attempts.failures();
    }

    /** The {@code user:password} bytes of a Basic header; throws {@link BadCredentials} on anything else. */
    static byte[] basic(String header) throws BadCredentials {
        if (header.length() > MAX_CREDENTIALS_CHARS) {
            throw new BadCredentials("Authorization header over " + MAX_CREDENTIALS_CHARS + " characters");
        }
        String h = header.trim();
        if (h.length() < 6 || !h.regionMatches(true, 0, "Basic ", 0, 6)) {
            throw new BadCredentials("only Basic credentials are accepted");
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(h.substring(6).trim());
        } catch (IllegalArgumentException e) {
            throw new BadCredentials("Basic credentials are not base64");
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(decoded));
        } catch (CharacterCodingException e) {
            throw new BadCredentials("Basic credentials are not UTF-8");
        }
        int colon = -1;
        for (int i = 0; i < decoded.length; i++) {
            if (decoded[i] < 0x20 && decoded[i] >= 0 || decoded[i] == 0x7f) {
                throw new BadCredentials("Basic credentials hold control characters");
            }
            if (decoded[i] == ':' && colon < 0) {
                colon = i;
            }
        }
        if (colon <= 0) {
            throw new BadCredentials("Basic credentials must be user:password with a non-empty user");
        }
        return decoded;
    }

    private static void addAll(List<Id> ids, List<Id> more) {
        for (Id id : more) {
            if (!ids.contains(id)) {
                ids.add(id);
            }
        }
    }
}
