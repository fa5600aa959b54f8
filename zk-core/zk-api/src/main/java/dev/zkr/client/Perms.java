package dev.zkr.client;

/** ZooKeeper's permission bits of an {@link Acl}: combine them with {@code |}. */
public final class Perms {
    /** Read the node's data and list its children. */
    public static final int READ = 1;
    /** Set the node's data. */
    public static final int WRITE = 2;
    /** Create children. */
    public static final int CREATE = 4;
    /** Delete children. */
    public static final int DELETE = 8;
    /** Set the node's ACL. */
    public static final int ADMIN = 16;
    /** Every permission. */
    public static final int ALL = READ | WRITE | CREATE | DELETE | ADMIN;

    private Perms() {
    }

    /** True if only known bits are set and at least one is. */
    public static boolean isValid(int perms) {
        return perms != 0 && (perms & ~ALL) == 0;
    }
}
