package dev.zkr.client;

/**
 * Path rules and helpers. A valid path is absolute, {@code /}-separated, has no trailing slash (except the root
 * {@code /}), no empty, {@code .} or {@code ..} segment, and no control or reserved characters (ZooKeeper's rules).
 * Every client operation validates its paths with {@link #validate(String)} before any I/O.
 */
public final class ZkPaths {

    /** Width of the sequence suffix of sequential nodes. */
    public static final int SEQUENCE_DIGITS = 10;

    private ZkPaths() {
    }

    /** Validates a path; throws {@link ZkException.InvalidPath} with the reason if it is not valid. */
    public static String validate(String path) {
        return validate(path, false);
    }

    /**
     * Validates a path. For a sequential create the path may end with {@code /} (the name is then only the
     * sequence number), as in ZooKeeper.
     */
    public static String validate(String path, boolean sequential) {
        if (path == null) {
            throw invalid(null, "path is null");
        }
        String checked = sequential ? path + "1" : path;
        if (checked.isEmpty()) {
            throw invalid(path, "path is empty");
        }
        if (checked.charAt(0) != '/') {
            throw invalid(path, "path must start with /");
        }
        if (checked.length() == 1) {
            return path;
        }
        if (checked.charAt(checked.length() - 1) == '/') {
            throw invalid(path, "path must not end with /");
        }
        int segmentStart = 1;
        for (int i = 1; i <= checked.length(); i++) {
            char c = i < checked.length() ? checked.charAt(i) : '/';
            if (c == '/') {
                int len = i - segmentStart;
                if (len == 0) {
                    throw invalid(path, "empty segment at index " + i);
                }
                if ((len == 1 && checked.charAt(segmentStart) == '.')
                        || (len == 2 && checked.charAt(segmentStart) == '.' && checked.charAt(segmentStart + 1) == '.')) {
                    throw invalid(path, "relative segment at index " + segmentStart);
                }
                segmentStart = i + 1;
            } else if (isForbidden(c)) {
                throw invalid(path, String.format("invalid character \\u%04x at index %d", (int) c, i));
            }
        }
        return path;
    }

    /** True if the path is valid. */
    public static boolean isValid(String path) {
        try {
            validate(path);
            return true;
        } catch (ZkException.InvalidPath e) {
            return false;
        }
    }

    private static boolean isForbidden(char c) {
        return c == 0
                || (c > '\u0000' && c <= '\u001f')
                || (c >= '\u007f' && c <= '\u009f')
                || (c >= '\ud800' && c <= '\uf8ff')
                || (c >= '\ufff0' && c <= '\uffff');
    }

    private static ZkException invalid(String path, String reason) {
        return new ZkException.InvalidPath(path, reason);
    }

    /** The parent of a valid path; the parent of {@code /x} is {@code /}; the root has no parent (null). */
    public static String parent(String path) {
        int slash = path.lastIndexOf('/');
        if (path.length() == 1) {
            return null;
        }
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    /** The last segment of a valid path ({@code ""} for the root). */
    public static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** Joins a parent path and a child name. */
    public static String join(String parent, String child) {
        return "/".equals(parent) ? "/" + child : parent + "/" + child;
    }

    /** The 10-digit, zero-padded sequence suffix ZooKeeper appends to sequential nodes. */
    public static String sequenceSuffix(long counter) {
        return String.format("%010d", counter);
    }

    /**
     * The sequence number at the end of a sequential node's name, or -1 if the name does not end with
     * {@value #SEQUENCE_DIGITS} digits.
     */
    public static long sequenceOf(String name) {
        int n = name.length();
        if (n < SEQUENCE_DIGITS) {
            return -1;
        }
        long value = 0;
        for (int i = n - SEQUENCE_DIGITS; i < n; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
