package dev.zkr.client;

import java.util.Objects;

/** One entry of a node's access control list: the {@link Perms} granted to an {@link Id}. */
public record Acl(int perms, Id id) {
    public Acl {
        Objects.requireNonNull(id, "id");
    }

    /** An entry for {@code scheme:id}. */
    public static Acl of(int perms, String scheme, String id) {
        return new Acl(perms, new Id(scheme, id));
    }

    @Override
    public String toString() {
        return id + "=" + perms;
    }
}
