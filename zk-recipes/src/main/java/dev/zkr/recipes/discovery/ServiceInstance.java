package dev.zkr.recipes.discovery;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * One registered instance of a service, immutable: what Curator's {@code ServiceInstance} carries (name, id,
 * address, port, SSL port, payload, registration time, service type, URI spec, enabled), stored as the same JSON.
 * Build one with {@link #builder(String)}.
 *
 * <p>The <b>payload</b> is kept as JSON text, exactly as stored: Curator writes it with Jackson's class tag (an
 * object payload as {@code {"@class":"com.example.Details", ...}}), and zkr neither needs nor loads that class.
 * {@link Builder#payloadJson(String)} stores any JSON value (checked to be well-formed);
 * {@link Builder#payloadMap(Map)} stores string pairs as a {@code java.util.LinkedHashMap} that Curator reads into a
 * {@code Map}, and {@link #payloadMap()} reads an object payload's scalar members back (without the class tag).
 */
public final class ServiceInstance {

    static final String CLASS_TAG = "@class";

    private final String name;
    private final String id;
    private final String address;
    private final Integer port;
    private final Integer sslPort;
    private final String payloadJson;
    private final long registrationTimeUtc;
    private final ServiceType serviceType;
    private final UriSpec uriSpec;
    private final boolean enabled;

    ServiceInstance(String name, String id, String address, Integer port, Integer sslPort, String payloadJson,
                    long registrationTimeUtc, ServiceType serviceType, UriSpec uriSpec, boolean enabled) {
        this.name = name;
        this.id = id;
        this.address = address;
        this.port = port;
        this.sslPort = sslPort;
        this.payloadJson = payloadJson;
        this.registrationTimeUtc = registrationTimeUtc;
        this.serviceType = serviceType;
        this.uriSpec = uriSpec;
        this.enabled = enabled;
    }

    /** A builder for an instance of the named service: a random UUID id, DYNAMIC, enabled, registered now. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder holding this instance's fields (for an update). */
    public Builder toBuilder() {
        Builder b = new Builder(name).id(id).registrationTimeUtc(registrationTimeUtc).serviceType(serviceType)
                .enabled(enabled);
        b.address = address;
        b.port = port;
        b.sslPort = sslPort;
        b.payloadJson = payloadJson;
        b.uriSpec = uriSpec;
        return b;
    }

    public String name() {
        return name;
    }

    public String id() {
        return id;
    }

    public Optional<String> address() {
        return Optional.ofNullable(address);
    }

    public OptionalInt port() {
        return port == null ? OptionalInt.empty() : OptionalInt.of(port);
    }

    public OptionalInt sslPort() {
        return sslPort == null ? OptionalInt.empty() : OptionalInt.of(sslPort);
    }

    /** The payload's JSON text as stored (Curator's: with its {@code @class} tag); empty if none (JSON null). */
    public Optional<String> payloadJson() {
        return Optional.ofNullable(payloadJson);
    }

    /**
     * The payload's members as strings, for an object payload whose members are strings, numbers, booleans or null
     * (left out), without Curator's {@code @class} tag; empty if there is no payload. Throws
     * {@link IllegalArgumentException} if the payload is not such an object.
     */
    public Map<String, String> payloadMap() {
        if (payloadJson == null) {
            return Map.of();
        }
        if (!(Json.parse(payloadJson) instanceof Map<?, ?> members)) {
            throw new IllegalArgumentException("the payload is not a JSON object: " + payloadJson);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : members.entrySet()) {
            Object v = e.getValue();
            if (CLASS_TAG.equals(e.getKey()) || v == Json.NULL) {
                continue;
            }
            if (v instanceof Map || v instanceof java.util.List) {
                throw new IllegalArgumentException("payload member \"" + e.getKey() + "\" is not a scalar");
            }
            out.put((String) e.getKey(), v instanceof Long || v instanceof Double || v instanceof Boolean
                    ? String.valueOf(v) : (String) v);
        }
        return Collections.unmodifiableMap(out);
    }

    /** Milliseconds since the epoch (UTC) of the registration, as the registering side set it. */
    public long registrationTimeUtc() {
        return registrationTimeUtc;
    }

    public ServiceType serviceType() {
        return serviceType;
    }

    public Optional<UriSpec> uriSpec() {
        return Optional.ofNullable(uriSpec);
    }

    /** False for an instance taken out of service (providers skip it; queries and caches still list it). */
    public boolean enabled() {
        return enabled;
    }

    /** The URI spec filled with this instance's fields; empty text if there is no spec. */
    public String buildUri() {
        return buildUri(Map.of());
    }

    /** The URI spec filled with this instance's fields and these variables; empty text if there is no spec. */
    public String buildUri(Map<String, ?> variables) {
        return uriSpec == null ? "" : uriSpec.build(this, variables);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ServiceInstance s && s.name.equals(name) && s.id.equals(id)
                && Objects.equals(s.address, address) && Objects.equals(s.port, port)
                && Objects.equals(s.sslPort, sslPort) && Objects.equals(s.payloadJson, payloadJson)
                && s.registrationTimeUtc == registrationTimeUtc && s.serviceType == serviceType
                && Objects.equals(s.uriSpec, uriSpec) && s.enabled == enabled;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, id, address, port, sslPort, payloadJson, registrationTimeUtc, serviceType, uriSpec,
                enabled);
    }

    @Override
    public String toString() {
        return "ServiceInstance[" + name + "/" + id + ", address=" + address + ", port=" + port + ", sslPort="
                + sslPort + ", type=" + serviceType + (enabled ? "" : ", disabled") + ", payload=" + payloadJson
                + "]";
    }

    /** Builds a {@link ServiceInstance}; every setter validates its argument ({@link IllegalArgumentException}). */
    public static final class Builder {

        private final String name;
        private String id = UUID.randomUUID().toString();
        private String address;
        private Integer port;
        private Integer sslPort;
        private String payloadJson;
        private Long registrationTimeUtc;
        private ServiceType serviceType = ServiceType.DYNAMIC;
        private UriSpec uriSpec;
        private boolean enabled = true;

        private Builder(String name) {
            this.name = nodeName(name, "service name");
        }

        /** The instance id, unique within the service (the node's name); default a random UUID. */
        public Builder id(String id) {
            this.id = nodeName(id, "instance id");
            return this;
        }

        public Builder address(String address) {
            this.address = Objects.requireNonNull(address, "address");
            return this;
        }

        /** The port, 0 to 65535. */
        public Builder port(int port) {
            this.port = checkPort(port);
            return this;
        }

        /** The SSL (TLS) port, 0 to 65535; with it, {@code {scheme}} in the URI spec is {@code https}. */
        public Builder sslPort(int sslPort) {
            this.sslPort = checkPort(sslPort);
            return this;
        }

        /** The payload as JSON text, any JSON value (checked well-formed); null for none. */
        public Builder payloadJson(String json) {
            if (json != null) {
                Object v = Json.parse(json);
                json = v == Json.NULL ? null : json.strip();
            }
            this.payloadJson = json;
            return this;
        }

        /**
         * The payload as string pairs, stored as Curator stores a {@code LinkedHashMap} payload
         * ({@code {"@class":"java.util.LinkedHashMap","k":"v",...}}), so Curator's clients read it as a map.
         */
        public Builder payloadMap(Map<String, String> payload) {
            StringBuilder out = new StringBuilder("{");
            Json.quote(out, CLASS_TAG);
            out.append(':');
            Json.quote(out, "java.util.LinkedHashMap");
            for (Map.Entry<String, String> e : payload.entrySet()) {
                if (CLASS_TAG.equals(e.getKey())) {
                    throw new IllegalArgumentException("the payload key " + CLASS_TAG + " is reserved");
                }
                out.append(',');
                Json.quote(out, Objects.requireNonNull(e.getKey(), "payload key"));
                out.append(':');
                Json.quote(out, Objects.requireNonNull(e.getValue(), "payload value"));
            }
            this.payloadJson = out.append('}').toString();
            return this;
        }

        /** Milliseconds since the epoch (UTC); default: when {@link #build()} is called. */
        public Builder registrationTimeUtc(long millis) {
            this.registrationTimeUtc = millis;
            return this;
        }

        /** How the node lives (default {@link ServiceType#DYNAMIC}). */
        public Builder serviceType(ServiceType serviceType) {
            this.serviceType = Objects.requireNonNull(serviceType, "serviceType");
            return this;
        }

        /** A URI template, e.g. {@code "{scheme}://{address}:{port}"} (see {@link UriSpec#parse}). */
        public Builder uriSpec(String template) {
            this.uriSpec = UriSpec.parse(template);
            return this;
        }

        public Builder uriSpec(UriSpec uriSpec) {
            this.uriSpec = uriSpec;
            return this;
        }

        /** False takes the instance out of service: providers skip it (default true). */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        public ServiceInstance build() {
            return new ServiceInstance(name, id, address, port, sslPort, payloadJson,
                    registrationTimeUtc == null ? System.currentTimeMillis() : registrationTimeUtc, serviceType,
                    uriSpec, enabled);
        }

        private static Integer checkPort(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range 0-65535: " + port);
            }
            return port;
        }

        /** A service name or instance id must be one valid node name. */
        static String nodeName(String s, String what) {
            if (s == null || s.isEmpty() || s.indexOf('/') >= 0 || s.equals(".") || s.equals("..")
                    || !dev.zkr.client.ZkPaths.isValid("/" + s)) {
                throw new IllegalArgumentException("not a valid " + what + " (one node name): " + s);
            }
            return s;
        }
    }
}
