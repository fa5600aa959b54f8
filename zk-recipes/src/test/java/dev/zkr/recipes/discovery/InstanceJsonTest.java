package dev.zkr.recipes.discovery;

import dev.zkr.recipes.ScaledTries;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The instance JSON: Curator's format read and written, malformed data rejected with a clear message. */
class InstanceJsonTest {

    /** What Curator 5.7.1's JsonInstanceSerializer writes (captured by zk-apache's DiscoveryInteropSuite). */
    private static final String CURATOR = "{\"name\":\"api\",\"id\":\"c1\",\"address\":\"h\",\"port\":1,\"sslPort\":null,"
            + "\"payload\":{\"@class\":\"com.example.Details\",\"zone\":\"z\",\"weight\":2},\"registrationTimeUTC\":5,"
            + "\"serviceType\":\"DYNAMIC\",\"uriSpec\":{\"parts\":[{\"value\":\"scheme\",\"variable\":true},"
            + "{\"value\":\"://\",\"variable\":false},{\"value\":\"address\",\"variable\":true}]}}";

    private static ServiceInstance read(String json) {
        return InstanceJson.read(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String write(ServiceInstance i) {
        return new String(InstanceJson.write(i), StandardCharsets.UTF_8);
    }

    @Test
    void readsWhatCuratorWrites() {
        ServiceInstance i = read(CURATOR);
        assertEquals("api", i.name());
        assertEquals("c1", i.id());
        assertEquals("h", i.address().orElseThrow());
        assertEquals(1, i.port().getAsInt());
        assertTrue(i.sslPort().isEmpty());
        assertEquals("{\"@class\":\"com.example.Details\",\"zone\":\"z\",\"weight\":2}", i.payloadJson().orElseThrow());
        assertEquals(Map.of("zone", "z", "weight", "2"), i.payloadMap());
        assertEquals(5, i.registrationTimeUtc());
        assertEquals(ServiceType.DYNAMIC, i.serviceType());
        assertEquals("{scheme}://{address}", i.uriSpec().orElseThrow().toString());
        assertTrue(i.enabled(), "no enabled field (Curator's compatible mode): enabled");
        assertEquals("http://h", i.buildUri());
    }

    @Test
    void writesCuratorsFieldsInCuratorsOrderWithEnabled() {
        ServiceInstance i = read(CURATOR);
        assertEquals(CURATOR.substring(0, CURATOR.length() - 1) + ",\"enabled\":true}", write(i));
        assertEquals(i, read(write(i)));
    }

    @Test
    void missingFieldsTakeCuratorsDefaultsAndUnknownOnesAreIgnored() {
        ServiceInstance i = read("{\"name\":\"a\",\"id\":\"b\",\"future\":{\"x\":[1,2]}}");
        assertTrue(i.address().isEmpty() && i.port().isEmpty() && i.sslPort().isEmpty());
        assertTrue(i.payloadJson().isEmpty() && i.uriSpec().isEmpty());
        assertEquals(0, i.registrationTimeUtc());
        assertEquals(ServiceType.DYNAMIC, i.serviceType());
        assertTrue(i.enabled());
        assertFalse(read("{\"name\":\"a\",\"id\":\"b\",\"enabled\":false}").enabled());
        assertEquals(ServiceType.PERMANENT, read("{\"name\":\"a\",\"id\":\"b\",\"serviceType\":\"PERMANENT\"}")
                .serviceType());
    }

    @Test
    void malformedDataIsAnIllegalArgumentSayingWhat() {
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("", "empty");
        bad.put("[]", "expected a JSON object");
        bad.put("{\"name\":\"a\"}", "without a name or an id");
        bad.put("{\"name\":\"a\",\"id\":\"\"}", "without a name or an id");
        bad.put("{\"name\":1,\"id\":\"b\"}", "\"name\" is not a string");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"port\":\"80\"}", "\"port\" is not an int");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"port\":1.5}", "\"port\" is not an int");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"sslPort\":4294967296}", "\"sslPort\" is not an int");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"registrationTimeUTC\":null}", "\"registrationTimeUTC\" is not a long");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"serviceType\":\"dynamic\"}", "\"serviceType\" is not one of");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"enabled\":\"yes\"}", "\"enabled\" is not a boolean");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"uriSpec\":{\"parts\":[{\"value\":1}]}}", "\"uriSpec\" is not");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"uriSpec\":[]}", "\"uriSpec\" is not");
        bad.put("{\"name\":\"a\",\"id\":\"b\"", "expected '}'");
        bad.put("{\"name\":\"a\",\"id\":\"b\"} x", "text after the JSON value");
        bad.put("{\"name\":\"a\",\"name\":\"b\"}", "duplicate key");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"payload\":[1,]}", "unexpected character");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"payload\":01}", "expected '}' but found '1'");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"payload\":\"\\x\"}", "bad escape");
        bad.put("{\"name\":\"a\",\"id\":\"b\",\"payload\":" + "[".repeat(100) + "]".repeat(100) + "}", "nested deeper");
        bad.put("{'name':'a'}", "expected a string");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> read(e.getKey()),
                    e.getKey());
            assertTrue(x.getMessage().contains(e.getValue()), e.getKey() + " -> " + x.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> InstanceJson.read(new byte[]{'{', (byte) 0xC3, '}'}),
                "not UTF-8");
    }

    @Test
    void payloadsAreKeptAsJsonText() {
        ServiceInstance s = ServiceInstance.builder("a").id("b").payloadJson(" [\"java.lang.String\",\"x\"] ").build();
        assertEquals("[\"java.lang.String\",\"x\"]", s.payloadJson().orElseThrow());
        assertEquals(s.payloadJson(), read(write(s)).payloadJson());
        assertTrue(ServiceInstance.builder("a").payloadJson("null").build().payloadJson().isEmpty());
        assertThrows(IllegalArgumentException.class, () -> s.payloadMap(), "not an object");
        assertThrows(IllegalArgumentException.class, () -> ServiceInstance.builder("a")
                .payloadMap(Map.of("@class", "x")));
        ServiceInstance m = ServiceInstance.builder("a").payloadMap(Map.of("k\"\n", "v\u0001é")).build();
        assertEquals(Map.of("k\"\n", "v\u0001é"), read(write(m)).payloadMap());
        assertThrows(IllegalArgumentException.class, () -> ServiceInstance.builder("a").payloadJson("{\"x\":{}}")
                .build().payloadMap(), "not a scalar");
    }

    @Test
    void uriSpecsParseAndBuildAsCuratorsDo() {
        UriSpec spec = UriSpec.parse("{scheme}://{ address }:{port}{[}x{]}/{unknown}{custom}");
        assertEquals(List.of(new UriSpec.Part("scheme", true), new UriSpec.Part("://", false),
                new UriSpec.Part("address", true), new UriSpec.Part(":", false), new UriSpec.Part("port", true),
                new UriSpec.Part("[", true), new UriSpec.Part("x", false), new UriSpec.Part("]", true),
                new UriSpec.Part("/", false), new UriSpec.Part("unknown", true), new UriSpec.Part("custom", true)),
                spec.parts());
        ServiceInstance i = ServiceInstance.builder("a").address("h").port(80).sslPort(443).uriSpec(spec).build();
        assertEquals("https://h:80{x}/c", i.buildUri(Map.of("custom", "c")));
        assertThrows(IllegalArgumentException.class, () -> UriSpec.parse("{a"));
        assertThrows(IllegalArgumentException.class, () -> UriSpec.parse("a}"));
        assertThrows(IllegalArgumentException.class, () -> UriSpec.parse("{a{b}}"));
    }

    @Provide
    Arbitrary<ServiceInstance> instances() {
        Arbitrary<String> text = Arbitraries.strings().ofMaxLength(12); // any chars: escapes, controls, unicode
        Arbitrary<String> names = Arbitraries.strings().alpha().numeric().withChars("-_.").ofMinLength(3)
                .ofMaxLength(10);
        Arbitrary<Integer> port = Arbitraries.integers().between(0, 65535).injectNull(0.3);
        Arbitrary<Map<String, String>> payload = Arbitraries.maps(text.filter(k -> !k.equals("@class")), text)
                .ofMaxSize(3).injectNull(0.3);
        Arbitrary<String> spec = Arbitraries.of("{scheme}://{address}:{port}", "http://x/{id}", "").injectNull(0.3);
        return Combinators.combine(names, names, text.injectNull(0.3), port, port, payload,
                Arbitraries.longs(), Arbitraries.of(ServiceType.class)).as((n, id, addr, p, sp, pay, t, type) -> {
                    ServiceInstance.Builder b = ServiceInstance.builder(n).id(id).registrationTimeUtc(t)
                            .serviceType(type);
                    if (addr != null) {
                        b.address(addr);
                    }
                    if (p != null) {
                        b.port(p);
                    }
                    if (sp != null) {
                        b.sslPort(sp);
                    }
                    if (pay != null) {
                        b.payloadMap(pay);
                    }
                    return b;
                }).flatMap(b -> Combinators.combine(spec, Arbitraries.of(true, false)).as((s, en) -> {
                    if (s != null) {
                        b.uriSpec(s);
                    }
                    return b.enabled(en).build();
                }));
    }

    /** Every instance is read back equal from what is written. */
    @Property
    @ScaledTries(200)
    void writtenInstancesReadBackEqual(@ForAll("instances") ServiceInstance i) {
        assertEquals(i, read(write(i)));
    }

    /** Any damage to valid instance JSON is read or rejected with an IllegalArgumentException, never anything else. */
    @Property
    @ScaledTries(300)
    void damagedJsonIsReadOrRejectedCleanly(@ForAll("instances") ServiceInstance i,
                                            @ForAll("cuts") int cut, @ForAll char junk) {
        String json = write(i);
        int at = Math.floorMod(cut, json.length());
        String damaged = json.substring(0, at) + junk + json.substring(Math.min(json.length(), at + (cut % 2)));
        try {
            read(damaged);
        } catch (IllegalArgumentException expected) {
            assertFalse(expected.getMessage().isEmpty());
        }
    }

    @Provide
    Arbitrary<Integer> cuts() {
        return Arbitraries.integers().between(0, 10_000);
    }
}
