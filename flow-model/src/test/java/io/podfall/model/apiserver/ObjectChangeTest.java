package io.podfall.model.apiserver;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.UnreadableEventException;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ObjectChangeTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private static Event fact(Object data) {
        return Event.request(
                "fact-1", "/apiserver", EventTypes.OBJECT_UPDATED, "namespaces/default/pods/web-1", T0, null, data);
    }

    @Test
    void readsTheObjectAndItsResourceName() {
        Pod pod = aPod("web-1").build();
        Event fact = fact(ObjectChange.of(ResourceType.PODS, pod));

        ObjectChange change = ObjectChange.of(fact);

        assertEquals("pods", change.resource());
        assertEquals(fact.data().get("object"), change.object());
        assertSame(change, ObjectChange.of(fact), "read once for every watcher it reaches in turn");
        assertEquals(pod, change.object(Pod.class));
        assertEquals(fact.data(ObjectChange.class), change, "the same change the general reader gives");
    }

    @Test
    void factsOfOneObjectShareItsUidAndName() {
        Pod created = aPod("web-1").withUid("0b4e7a3c-uid").build();
        Pod scheduled = aPod("web-1").withUid("0b4e7a3c-uid").onNode("node-1").build();

        JsonNode first = ObjectChange.of(fact(ObjectChange.of(ResourceType.PODS, created)))
                .object()
                .get("metadata");
        JsonNode second = ObjectChange.of(fact(ObjectChange.of(ResourceType.PODS, scheduled)))
                .object()
                .get("metadata");

        assertSame(first.get("uid").textValue(), second.get("uid").textValue(), "one uid string for every cache");
        assertSame(first.get("name").textValue(), second.get("name").textValue());
        assertEquals("0b4e7a3c-uid", second.get("uid").textValue());
    }

    @Test
    void theChangeOfAnObjectWrittenBeforeIsTheChangeWrittenWhole() {
        Pod pod = aPod("web-1").build();
        byte[] json = ObjectChange.json(ResourceType.PODS, Json.bytes(pod));

        assertEquals(Json.read(Json.bytes(ObjectChange.of(ResourceType.PODS, pod))), Json.read(json));
        assertEquals(pod, ObjectChange.of(fact(Json.read(json))).object(Pod.class));
        int from = ObjectChange.objectOffset(ResourceType.PODS);
        assertEquals(
                pod,
                Json.read(json, from, json.length - 1 - from, Pod.class),
                "the object's JSON is a range of the change's");
    }

    @Test
    void dataWithoutAResourceNameOrAnObjectIsBadData() {
        for (String data : new String[] {
            "{\"object\":{}}",
            "{\"resource\":\"pods\"}",
            "{\"resource\":7,\"object\":{}}",
            "{\"resource\":\"pods\",\"object\":[1]}"
        }) {
            JsonNode tree = Json.read(data.getBytes());
            UnreadableEventException e =
                    assertThrows(UnreadableEventException.class, () -> ObjectChange.of(fact(tree)), data);
            assertEquals(UnreadableEventException.Kind.BAD_DATA, e.kind());
        }
    }
}
