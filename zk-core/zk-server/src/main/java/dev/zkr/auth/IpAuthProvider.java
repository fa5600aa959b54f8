package dev.zkr.auth;

import dev.zkr.client.Id;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The {@code ip} scheme, as ZooKeeper's {@code IPAuthenticationProvider}: every connection holds
 * {@code ip:<its address>}; an ACL id is an address or a CIDR block ({@code 10.0.0.0/8}, {@code fd00::/8}), IPv4
 * or IPv6. Only literal addresses are accepted (never a host name: no DNS lookup on the request path).
 */
public final class IpAuthProvider implements AuthProvider {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    @Override
    public String scheme() {
        return "ip";
    }

    @Override
    public List<Id> authenticate(ClientInfo client, byte[] auth) {
        return client.remoteAddress() == null ? List.of() : List.of(new Id("ip", client.remoteAddress()));
    }

    @Override
    public boolean matches(String id, String aclExpr) {
        byte[] address = parse(id);
        Block block = block(aclExpr);
        if (address == null || block == null || address.length != block.address.length) {
            return false;
        }
        int bits = block.bits;
        for (int i = 0; i < address.length && bits > 0; i++, bits -= 8) {
            int mask = bits >= 8 ? 0xFF : (0xFF << (8 - bits)) & 0xFF;
            if ((address[i] & mask) != (block.address[i] & mask)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean isValid(String aclExpr) {
        return block(aclExpr) != null;
    }

    /** Connections do not count as authenticated identities for {@code auth} ACLs. */
    @Override
    public boolean isAuthenticated() {
        return false;
    }

    private record Block(byte[] address, int bits) {
    }

    private static Block block(String expr) {
        if (expr == null) {
            return null;
        }
        int slash = expr.indexOf('/');
        byte[] address = parse(slash < 0 ? expr : expr.substring(0, slash));
        if (address == null) {
            return null;
        }
        int bits = address.length * 8;
        if (slash >= 0) {
            try {
                bits = Integer.parseInt(expr.substring(slash + 1));
            } catch (NumberFormatException e) {
                return null;
            }
            if (bits < 0 || bits > address.length * 8) {
                return null;
            }
        }
        return new Block(address, bits);
    }

    /** The bytes of a literal IPv4 or IPv6 address (a {@code %scope} is dropped), or null. */
    static byte[] parse(String literal) {
        if (literal == null || literal.isEmpty()) {
            return null;
        }
        int scope = literal.indexOf('%');
        String s = scope < 0 ? literal : literal.substring(0, scope);
        if (s.indexOf(':') < 0) {
            if (!IPV4.matcher(s).matches()) {
                return null;
            }
            for (String part : s.split("\\.")) {
                if (Integer.parseInt(part) > 255) {
                    return null;
                }
            }
        } else if (!s.matches("[0-9A-Fa-f:.]+")) {
            return null;
        }
        try {
            return InetAddress.getByName(s).getAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
