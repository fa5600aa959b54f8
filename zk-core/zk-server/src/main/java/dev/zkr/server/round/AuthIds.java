package dev.zkr.server.round;

import dev.zkr.client.Id;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Encodes a connection's authenticated ids for a forwarded request: count, then (scheme, id) as UTF strings. */
final class AuthIds {

    private static final int MAX_IDS = 1024;

    private AuthIds() {
    }

    static byte[] encode(List<Id> ids) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeShort(ids.size());
            for (Id id : ids) {
                out.writeUTF(id.scheme());
                out.writeUTF(id.id());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The ids; throws IllegalArgumentException on malformed bytes (null bytes: none). */
    static List<Id> decode(byte[] bytes) {
        if (bytes == null) {
            return List.of();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int n = in.readUnsignedShort();
            if (n > MAX_IDS) {
                throw new IllegalArgumentException("too many auth ids: " + n);
            }
            List<Id> ids = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                ids.add(new Id(in.readUTF(), in.readUTF()));
            }
            return ids;
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed auth ids: " + e.getMessage());
        }
    }
}
