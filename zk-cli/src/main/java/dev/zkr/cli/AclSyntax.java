package dev.zkr.cli;

import dev.zkr.client.Acl;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * ACLs and authentication as typed on the command line, in zkCli's syntax. Pure.
 * <ul>
 * <li>An ACL entry is {@code scheme:id:perms}: the scheme up to the first {@code :}, the permissions after the last
 * one (letters {@code c d r w a} in any order), the id between ({@code digest:bob:HASH:rw}, {@code ip:fd00::/8:r},
 * {@code world:anyone:cdrwa}, {@code auth::cdrwa}).</li>
 * <li>A list is entries joined by commas. A comma starts a new entry only where a scheme name and {@code :} follow
 * ({@code [A-Za-z][A-Za-z0-9_.-]*:}), so {@code x509} ids, whose RFC 2253 subjects hold commas
 * ({@code x509:CN=alice,O=zkr:cdrwa}), need no quoting.</li>
 * <li>{@code --auth} is {@code scheme:auth}: the scheme up to the first {@code :} ({@code digest:bob:secret}).</li>
 * </ul>
 */
public final class AclSyntax {

    /** zkCli's order of the permission letters. */
    private static final String LETTERS = "cdrwa";
    private static final int[] BITS = {Perms.CREATE, Perms.DELETE, Perms.READ, Perms.WRITE, Perms.ADMIN};
    private static final Pattern ENTRY_START = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]*:.*", Pattern.DOTALL);

    /** One {@code --auth} or {@code addauth}: a scheme and the bytes sent for it. */
    public record Auth(String scheme, byte[] auth) {
    }

    private AclSyntax() {
    }

    /** Parses {@code scheme:id:perms[,scheme:id:perms...]}; throws {@link UsageException} naming what is wrong. */
    public static List<Acl> parseList(String text) {
        if (text == null || text.isBlank()) {
            throw new UsageException("empty ACL (expected scheme:id:perms, e.g. world:anyone:cdrwa)");
        }
        List<String> entries = new ArrayList<>();
        StringBuilder current = null;
        for (String piece : text.split(",", -1)) {
            if (current == null || ENTRY_START.matcher(piece).matches()) {
                if (current != null) {
                    entries.add(current.toString());
                }
                current = new StringBuilder(piece);
            } else {
                current.append(',').append(piece);
            }
        }
        entries.add(current.toString());
        List<Acl> acls = new ArrayList<>(entries.size());
        for (String e : entries) {
            acls.add(parse(e));
        }
        return acls;
    }

    /** Parses one {@code scheme:id:perms}. */
    public static Acl parse(String entry) {
        int first = entry.indexOf(':');
        int last = entry.lastIndexOf(':');
        if (first <= 0 || first == last) {
            throw new UsageException("not an ACL entry: '" + entry + "' (expected scheme:id:perms, e.g. "
                    + "digest:bob:HASH:rw, ip:10.0.0.0/8:r, world:anyone:cdrwa, auth::cdrwa)");
        }
        String scheme = entry.substring(0, first);
        String id = entry.substring(first + 1, last);
        return new Acl(perms(entry.substring(last + 1), entry), new Id(scheme, id));
    }

    /** Permission letters ({@code cdrwa}, any order, each at most once) to bits. */
    static int perms(String letters, String entry) {
        if (letters.isEmpty()) {
            throw new UsageException("no permissions in ACL entry '" + entry + "' (letters of cdrwa)");
        }
        int bits = 0;
        for (char ch : letters.toCharArray()) {
            int i = LETTERS.indexOf(ch);
            if (i < 0) {
                throw new UsageException("unknown permission '" + ch + "' in ACL entry '" + entry
                        + "' (letters of cdrwa: create, delete, read, write, admin)");
            }
            bits |= BITS[i];
        }
        return bits;
    }

    /** Permission bits as letters in zkCli's order ({@code cdrwa}); unknown bits are ignored. */
    public static String letters(int perms) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < BITS.length; i++) {
            if ((perms & BITS[i]) != 0) {
                sb.append(LETTERS.charAt(i));
            }
        }
        return sb.toString();
    }

    /** An entry as {@code scheme:id:perms}, the form {@link #parse} reads back. */
    public static String format(Acl acl) {
        return acl.id().scheme() + ":" + acl.id().id() + ":" + letters(acl.perms());
    }

    /** Parses {@code scheme:auth} ({@code digest:bob:secret}); the bytes are the UTF-8 of what follows the scheme. */
    public static Auth parseAuth(String text) {
        int colon = text == null ? -1 : text.indexOf(':');
        if (colon <= 0) {
            throw new UsageException("--auth needs scheme:auth, e.g. digest:bob:secret");
        }
        return new Auth(text.substring(0, colon), text.substring(colon + 1).getBytes(StandardCharsets.UTF_8));
    }
}
