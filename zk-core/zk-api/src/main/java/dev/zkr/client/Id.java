package dev.zkr.client;

import java.util.Objects;

/**
 * An identity in an {@link Acl} or of an authenticated session: a scheme ({@code world}, {@code auth},
 * {@code digest}, {@code ip}, or one a server's {@code AuthProvider} adds) and an id whose meaning the scheme
 * defines ({@code anyone}; {@code user:base64(sha1(user:password))}; an address or CIDR block).
 */
public record Id(String scheme, String id) {
    public Id {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(id, "id");
    }

    @Override
    public String toString() {
        return scheme + ":" + id;
    }
}
