package dev.zkr.server;

import java.util.List;

/** Test access to {@code ServerProperties}' parsers for the tests of zk-server's other packages. */
public final class ServerPropertiesAccess {

    private ServerPropertiesAccess() {
    }

    /** {@code 4lw.commands.whitelist} as the properties file parser reads it. */
    public static List<String> parseWords(String value) {
        return ServerProperties.parseWords(value);
    }
}
