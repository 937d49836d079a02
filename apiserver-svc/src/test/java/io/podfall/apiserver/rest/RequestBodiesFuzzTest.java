package io.podfall.apiserver.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.k8s.ResourceType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Odd request bodies from a seeded generator (the same on every run) reach the registry only as a JSON object: anything
 * else is a 400 BadRequest Status (415 for a media type not served), never another failure.
 */
class RequestBodiesFuzzTest {
    private static final long SEED = 1123L;
    private static final int CASES = 2000;
    private static final List<String> FRAGMENTS = List.of(
            "{",
            "}",
            "[",
            "]",
            "\"",
            ":",
            ",",
            "null",
            "true",
            "-1e999",
            "0x1F",
            "\"kind\"",
            "\"Pod\"",
            "\\u0000",
            "\\ud800",
            " ",
            "\n",
            "é",
            "//",
            "/*",
            "NaN",
            "'a'",
            "\u0000");

    private final Random random = new Random(SEED);

    @Test
    void randomBytesAndFragmentsAreAnObjectOrABadRequest() {
        int objects = 0;
        for (int i = 0; i < CASES; i++) {
            byte[] body = i % 2 == 0 ? randomBytes() : randomFragments();
            try {
                ObjectNode object = RequestBodies.object(ResourceType.PODS, "application/json", body);
                assertEquals("Pod", object.path("kind").asText(), "the kind of the URL, unless the body names one");
                objects++;
            } catch (StatusError e) {
                assertEquals(400, e.status().getCode(), e.getMessage());
                assertEquals("BadRequest", e.status().getReason());
            }
        }
        assertTrue(objects < CASES, "some bodies were refused");
    }

    @Test
    void deeplyNestedJsonIsABadRequestNotAStackOverflow() {
        String nested = "{\"a\":".repeat(100_000) + "1" + "}".repeat(100_000);

        StatusError e = assertThrows(
                StatusError.class,
                () -> RequestBodies.object(
                        ResourceType.PODS, "application/json", nested.getBytes(StandardCharsets.UTF_8)));

        assertEquals(400, e.status().getCode());
    }

    @Test
    void nonObjectJsonAndEmptyBodiesAreBadRequests() {
        for (String body : List.of("[]", "\"pod\"", "42", "null", "true", "", "   ", "{} {}")) {
            StatusError e = assertThrows(
                    StatusError.class,
                    () -> RequestBodies.object(
                            ResourceType.PODS, "application/json", body.getBytes(StandardCharsets.UTF_8)),
                    body);
            assertEquals(400, e.status().getCode(), body);
        }
    }

    @Test
    void aBodyInAMediaTypeNotServedIsUnsupported() {
        for (String type :
                List.of("application/yaml", "text/plain", "application/cbor", "application/x-www-form-urlencoded")) {
            StatusError e = assertThrows(
                    StatusError.class, () -> RequestBodies.object(ResourceType.PODS, type, "{}".getBytes()), type);
            assertEquals(415, e.status().getCode(), type);
        }
    }

    private byte[] randomBytes() {
        byte[] bytes = new byte[random.nextInt(64)];
        random.nextBytes(bytes);
        return bytes;
    }

    private byte[] randomFragments() {
        StringBuilder s = new StringBuilder(random.nextBoolean() ? "{" : "");
        int n = random.nextInt(12);
        for (int i = 0; i < n; i++) {
            s.append(FRAGMENTS.get(random.nextInt(FRAGMENTS.size())));
        }
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }
}
