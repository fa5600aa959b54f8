package dev.zkr.recipes.discovery;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The instance JSON of Curator's {@code JsonInstanceSerializer} (curator-x-discovery 5.7.1), both ways. Written:
 * every field in Curator's order, nulls included, with {@code enabled} (Curator's readers ignore fields they do
 * not know, and read {@code enabled} when their serializer is not in its default compatible mode). Read: UTF-8, one
 * object; missing fields take Curator's defaults (no address, ports or payload, time 0, DYNAMIC, no URI spec,
 * enabled), unknown fields are ignored as Curator does, and a field of the wrong type, a missing or empty name or
 * id, or text that is not JSON is an {@link IllegalArgumentException}.
 */
final class InstanceJson {

    private InstanceJson() {
    }

    static byte[] write(ServiceInstance s) {
        StringBuilder out = new StringBuilder(256).append('{');
        field(out, "name").append(quoted(s.name())).append(',');
        field(out, "id").append(quoted(s.id())).append(',');
        field(out, "address").append(s.address().map(InstanceJson::quoted).orElse("null")).append(',');
        field(out, "port").append(s.port().isPresent() ? String.valueOf(s.port().getAsInt()) : "null").append(',');
        field(out, "sslPort").append(s.sslPort().isPresent() ? String.valueOf(s.sslPort().getAsInt()) : "null")
                .append(',');
        field(out, "payload").append(s.payloadJson().orElse("null")).append(',');
        field(out, "registrationTimeUTC").append(s.registrationTimeUtc()).append(',');
        field(out, "serviceType").append(quoted(s.serviceType().name())).append(',');
        field(out, "uriSpec");
        if (s.uriSpec().isEmpty()) {
            out.append("null");
        } else {
            out.append("{\"parts\":[");
            List<UriSpec.Part> parts = s.uriSpec().get().parts();
            for (int i = 0; i < parts.size(); i++) {
                out.append(i == 0 ? "" : ",").append("{\"value\":").append(quoted(parts.get(i).value()))
                        .append(",\"variable\":").append(parts.get(i).variable()).append('}');
            }
            out.append("]}");
        }
        out.append(',');
        field(out, "enabled").append(s.enabled()).append('}');
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static StringBuilder field(StringBuilder out, String name) {
        return out.append('"').append(name).append("\":");
    }

    private static String quoted(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        Json.quote(sb, s);
        return sb.toString();
    }

    /** Reads an instance; {@link IllegalArgumentException} (saying what is wrong) if the data is not one. */
    static ServiceInstance read(byte[] data) {
        if (data == null || data.length == 0) {
            throw new IllegalArgumentException("no instance data (empty node)");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(data)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("instance data is not UTF-8");
        }
        Map<String, Json.Member> m = Json.object(text);
        String name = string(m, "name", null);
        String id = string(m, "id", null);
        if (name == null || name.isEmpty() || id == null || id.isEmpty()) {
            throw new IllegalArgumentException("instance without a name or an id");
        }
        Json.Member payload = m.get("payload");
        return new ServiceInstance(name, id, string(m, "address", null), port(m, "port"), port(m, "sslPort"),
                payload == null || payload.value() == Json.NULL ? null : payload.raw(),
                number(m, "registrationTimeUTC"), serviceType(m), uriSpec(m), bool(m, "enabled"));
    }

    private static Object value(Map<String, Json.Member> m, String field) {
        Json.Member v = m.get(field);
        return v == null ? Json.NULL : v.value();
    }

    private static IllegalArgumentException wrong(String field, Object v, String expected) {
        return new IllegalArgumentException("instance field \"" + field + "\" is not " + expected + ": " + v);
    }

    private static String string(Map<String, Json.Member> m, String field, String absent) {
        Object v = value(m, field);
        if (v == Json.NULL) {
            return absent;
        }
        if (!(v instanceof String s)) {
            throw wrong(field, v, "a string");
        }
        return s;
    }

    private static Integer port(Map<String, Json.Member> m, String field) {
        Object v = value(m, field);
        if (v == Json.NULL) {
            return null;
        }
        if (!(v instanceof Long l) || l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
            throw wrong(field, v, "an int");
        }
        return l.intValue();
    }

    private static long number(Map<String, Json.Member> m, String field) {
        Object v = value(m, field);
        if (v == Json.NULL && !m.containsKey(field)) {
            return 0;
        }
        if (!(v instanceof Long l)) {
            throw wrong(field, v, "a long");
        }
        return l;
    }

    private static boolean bool(Map<String, Json.Member> m, String field) {
        Object v = value(m, field);
        if (v == Json.NULL && !m.containsKey(field)) {
            return true;
        }
        if (!(v instanceof Boolean b)) {
            throw wrong(field, v, "a boolean");
        }
        return b;
    }

    private static ServiceType serviceType(Map<String, Json.Member> m) {
        if (!m.containsKey("serviceType")) {
            return ServiceType.DYNAMIC;
        }
        Object v = value(m, "serviceType");
        if (v instanceof String s) {
            for (ServiceType t : ServiceType.values()) {
                if (t.name().equals(s)) {
                    return t;
                }
            }
        }
        throw wrong("serviceType", v, "one of " + List.of(ServiceType.values()));
    }

    private static UriSpec uriSpec(Map<String, Json.Member> m) {
        Object v = value(m, "uriSpec");
        if (v == Json.NULL) {
            return null;
        }
        if (!(v instanceof Map<?, ?> spec) || !(spec.get("parts") instanceof List<?> parts)) {
            throw wrong("uriSpec", v, "an object with a \"parts\" array");
        }
        List<UriSpec.Part> out = new ArrayList<>();
        for (Object p : parts) {
            if (!(p instanceof Map<?, ?> part) || !(part.get("value") instanceof String value)
                    || !(part.get("variable") instanceof Boolean variable)) {
                throw wrong("uriSpec", v, "parts of {\"value\": string, \"variable\": boolean}");
            }
            out.add(new UriSpec.Part(value, variable));
        }
        return UriSpec.of(out);
    }
}
