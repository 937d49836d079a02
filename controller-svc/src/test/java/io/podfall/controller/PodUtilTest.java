package io.podfall.controller;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodUtilTest {

    private static JsonNode pod(String name, String labels) {
        return Json.read(("{\"metadata\":{\"name\":\"" + name + "\",\"labels\":" + labels + "}}").getBytes(UTF_8));
    }

    @Test
    void podsThatCarryTheSameLabelsShareOneMap() {
        Map<String, String> first = PodUtil.labels(pod("web-1", "{\"app\":\"web\",\"pod-template-hash\":\"7d9f8\"}"));
        Map<String, String> second = PodUtil.labels(pod("web-2", "{\"pod-template-hash\":\"7d9f8\",\"app\":\"web\"}"));
        Map<String, String> other = PodUtil.labels(pod("db-1", "{\"app\":\"db\"}"));

        assertEquals(Map.of("app", "web", "pod-template-hash", "7d9f8"), first);
        assertSame(first, second, "one map for every pod of a ReplicaSet, whatever the order in the JSON");
        assertNotSame(first, other);
        assertEquals(Map.of("app", "db"), other);
        assertThrows(UnsupportedOperationException.class, () -> first.put("app", "changed"), "shared, so unchangeable");
    }

    @Test
    void anObjectWithoutLabelsHasNone() {
        assertEquals(Map.of(), PodUtil.labels(Json.read("{\"metadata\":{}}".getBytes(UTF_8))));
    }
}
