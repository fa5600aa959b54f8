package dev.zkr.cli;

import dev.zkr.client.Stat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Text and JSON forms of the values the node commands print (Stat, data, times, ids). Pure. */
public final class Formats {

    private Formats() {
    }

    /** A zxid or session id as ZooKeeper tools show it: {@code 0x} and lower-case hex. */
    public static String hex(long id) {
        return "0x" + Long.toHexString(id);
    }

    /** Epoch millis as ISO-8601 UTC, e.g. {@code 2026-11-27T16:40:02.123Z}. */
    public static String time(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString();
    }

    /** A duration in millis as a short human form: {@code 850 ms}, {@code 12.4 s}, {@code 3 min 5 s}, {@code 2 h 1 min}. */
    public static String age(long millis) {
        if (millis < 0) {
            millis = 0;
        }
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format("%.1f s", millis / 1000.0);
        }
        long s = millis / 1000;
        if (s < 3600) {
            return (s / 60) + " min " + (s % 60) + " s";
        }
        return (s / 3600) + " h " + (s % 3600 / 60) + " min";
    }

    /** The Stat in the layout of ZooKeeper's CLI, one field a line. */
    public static List<String> statLines(Stat s) {
        List<String> lines = new ArrayList<>();
        lines.add("cZxid = " + hex(s.czxid()));
        lines.add("ctime = " + time(s.ctime()));
        lines.add("mZxid = " + hex(s.mzxid()));
        lines.add("mtime = " + time(s.mtime()));
        lines.add("pZxid = " + hex(s.pzxid()));
        lines.add("cversion = " + s.cversion());
        lines.add("dataVersion = " + s.version());
        lines.add("aclVersion = " + s.aversion());
        lines.add("ephemeralOwner = " + hex(s.ephemeralOwner()));
        lines.add("dataLength = " + s.dataLength());
        lines.add("numChildren = " + s.numChildren());
        return lines;
    }

    /** The Stat as a JSON object; ids and zxids are numbers (exact up to 2^53, as every zxid of a sane run). */
    public static Map<String, Object> statJson(Stat s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("czxid", s.czxid());
        m.put("mzxid", s.mzxid());
        m.put("pzxid", s.pzxid());
        m.put("ctime", s.ctime());
        m.put("mtime", s.mtime());
        m.put("version", s.version());
        m.put("cversion", s.cversion());
        m.put("aversion", s.aversion());
        m.put("ephemeralOwner", hex(s.ephemeralOwner()));
        m.put("dataLength", s.dataLength());
        m.put("numChildren", s.numChildren());
        return m;
    }

    /** Node data as JSON: {@code {"data": "...", "encoding": "utf8|hex|base64"}} entries added to the map. */
    public static void putData(Map<String, Object> m, byte[] data, DataFormat format) {
        DataFormat f = format.forJson(data);
        m.put("data", f.encode(data));
        m.put("encoding", f.jsonName());
    }
}
