package io.podfall.model.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;
import org.junit.jupiter.api.Test;

class ProjectionTest {
    private static final JsonNode POD = Json.read(("""
            {"apiVersion":"v1","kind":"Pod",
             "metadata":{"name":"web-1","uid":"u-1","labels":{"app":"web"},"managedFields":[{"manager":"kubectl"}]},
             "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"nginx:1.27"}]},
             "status":{"phase":"Running","podIP":"10.244.0.7",
                       "containerStatuses":[{"name":"app","restartCount":2,"state":{"running":{}}},
                                            {"name":"side","state":{"waiting":{}}}]}}
            """).getBytes());

    @Test
    void keepsOnlyTheNamedFieldsAndWholeSubtreesUnderAName() {
        JsonNode cut = Projection.of("metadata.name", "metadata.labels", "spec.nodeName", "status.phase")
                .apply(POD);

        assertEquals(Json.read("""
                {"metadata":{"name":"web-1","labels":{"app":"web"}},"spec":{"nodeName":"node-1"},"status":{"phase":"Running"}}
                """.getBytes()), cut);
    }

    @Test
    void aPathThroughAnArrayCutsEachElementInItsPlace() {
        JsonNode cut = Projection.of("status.containerStatuses.restartCount").apply(POD);

        assertEquals(Json.read("""
                {"status":{"containerStatuses":[{"restartCount":2},{}]}}
                """.getBytes()), cut);
    }

    @Test
    void aFieldTheObjectLacksStaysAbsentAndTheObjectIsNotChanged() {
        JsonNode before = POD.deepCopy();

        JsonNode cut = Projection.of("metadata.deletionTimestamp", "spec").apply(POD);

        assertEquals(Json.read("""
                {"metadata":{},"spec":{"nodeName":"node-1","containers":[{"name":"app","image":"nginx:1.27"}]}}
                """.getBytes()), cut);
        assertEquals(before, POD);
    }
}
