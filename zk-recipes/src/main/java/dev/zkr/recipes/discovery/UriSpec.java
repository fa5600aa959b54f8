package dev.zkr.recipes.discovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A URI template such as {@code "{scheme}://{address}:{port}/api"} (Curator's {@code UriSpec}, same JSON:
 * {@code {"parts":[{"value":"scheme","variable":true}, ...]}}). {@link #build} fills the variables {@code scheme}
 * ({@code https} when the instance has an SSL port, else {@code http}), {@code name}, {@code id}, {@code address},
 * {@code port}, {@code ssl-port}, {@code registration-time-utc}, {@code service-type} (lower case), {@code [} and
 * {@code ]} (literal braces), then the caller's; an unknown variable is left out.
 */
public final class UriSpec {

    /** One literal piece of the template, or the name of a variable. */
    public record Part(String value, boolean variable) {
        public Part {
            Objects.requireNonNull(value, "value");
        }
    }

    private final List<Part> parts;

    private UriSpec(List<Part> parts) {
        this.parts = List.copyOf(parts);
    }

    /**
     * Parses a template: text in braces is a variable (trimmed), the rest is literal. Throws
     * {@link IllegalArgumentException} for a nested {@code {}, a {@code }} without {@code {}, or an unclosed variable.
     */
    public static UriSpec parse(String template) {
        Objects.requireNonNull(template, "template");
        List<Part> parts = new ArrayList<>();
        StringBuilder piece = new StringBuilder();
        boolean inVariable = false;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == '{') {
                if (inVariable) {
                    throw new IllegalArgumentException("'{' inside a variable at " + i + ": " + template);
                }
                flush(parts, piece, false);
                inVariable = true;
            } else if (c == '}') {
                if (!inVariable) {
                    throw new IllegalArgumentException("'}' without '{' at " + i + ": " + template);
                }
                flush(parts, piece, true);
                inVariable = false;
            } else {
                piece.append(c);
            }
        }
        if (inVariable) {
            throw new IllegalArgumentException("variable not closed with '}': " + template);
        }
        flush(parts, piece, false);
        return new UriSpec(parts);
    }

    private static void flush(List<Part> parts, StringBuilder piece, boolean variable) {
        if (piece.length() > 0) {
            parts.add(new Part(variable ? piece.toString().trim() : piece.toString(), variable));
        }
        piece.setLength(0);
    }

    /** A template made of these parts (as read from the JSON). */
    public static UriSpec of(List<Part> parts) {
        return new UriSpec(parts);
    }

    public List<Part> parts() {
        return parts;
    }

    /** The template filled with the instance's fields (may be null: then only {@code scheme} and the braces). */
    public String build(ServiceInstance instance, Map<String, ?> variables) {
        Map<String, Object> values = new HashMap<>();
        values.put("[", "{");
        values.put("]", "}");
        values.put("scheme", "http");
        if (instance != null) {
            values.put("name", instance.name());
            values.put("id", instance.id());
            values.put("address", instance.address().orElse(""));
            values.put("port", instance.port().isPresent() ? instance.port().getAsInt() : "");
            values.put("ssl-port", instance.sslPort().isPresent() ? instance.sslPort().getAsInt() : "");
            values.put("registration-time-utc", instance.registrationTimeUtc());
            values.put("service-type", instance.serviceType().name().toLowerCase(java.util.Locale.ROOT));
            if (instance.sslPort().isPresent()) {
                values.put("scheme", "https");
            }
        }
        values.putAll(variables);
        StringBuilder out = new StringBuilder();
        for (Part p : parts) {
            if (!p.variable()) {
                out.append(p.value());
            } else {
                Object v = values.get(p.value());
                if (v != null) {
                    out.append(v);
                }
            }
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UriSpec u && u.parts.equals(parts);
    }

    @Override
    public int hashCode() {
        return parts.hashCode();
    }

    /** The template text ({@code {name}} for variables). */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Part p : parts) {
            sb.append(p.variable() ? "{" + p.value() + "}" : p.value());
        }
        return sb.toString();
    }
}
