package io.podfall.controller.garbagecollector;

import static io.podfall.controller.garbagecollector.Owners.aPodOf;
import static io.podfall.controller.garbagecollector.Owners.aReplicaSet;
import static io.podfall.controller.garbagecollector.Owners.ownedBy;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeTest {
    private final ReplicaSet rs = aReplicaSet("web-abc");

    @Test
    void aNodeIsWhatTheObjectsMetadataSays() {
        Pod pod = ownedBy(
                aPod("web-1")
                        .withUid("uid-web-1")
                        .withFinalizer("example.com/hold")
                        .terminating(Instant.parse("2026-03-01T10:00:30Z"), 30)
                        .build(),
                rs,
                false);
        pod.getMetadata().setResourceVersion("42");

        Node node = read(ResourceType.PODS, pod);

        assertEquals(
                new Node(
                        "pods",
                        "default",
                        "web-1",
                        "uid-web-1",
                        "42",
                        List.of(new Node.Owner("apps/v1", "ReplicaSet", "web-abc", "uid-web-abc", false)),
                        List.of("example.com/hold"),
                        true),
                node);
        assertFalse(read(ResourceType.PODS, aPodOf(rs, "web-2")).beingDeleted());
        assertTrue(read(ResourceType.PODS, aPodOf(rs, "web-2")).owners().get(0).blockOwnerDeletion());
    }

    @Test
    void anObjectWithoutAUidIsNoNode() {
        assertTrue(Node.of(change(ResourceType.PODS, aPod("web-1").withUid("").build()))
                .isEmpty());
        assertTrue(Node.of(change(ResourceType.PODS, aPod("web-1").build())).isEmpty());
    }

    @Test
    void whatManyObjectsShareIsOneStringForAll() {
        Node one = read(ResourceType.PODS, aPodOf(rs, "web-1"));
        Node other = read(ResourceType.PODS, aPodOf(rs, "web-2"));

        assertSame(one.namespace(), other.namespace());
        assertSame(one.resource(), other.resource());
        assertSame(one.owners().get(0).uid(), other.owners().get(0).uid());
        assertSame(one.owners().get(0).name(), other.owners().get(0).name());
    }

    /** The node of the object as a fact of its own would carry it: each read from JSON text of its own. */
    private static Node read(ResourceType type, HasMetadata object) {
        return Node.of(change(type, object)).orElseThrow();
    }

    private static ObjectChange change(ResourceType type, HasMetadata object) {
        return Json.read(Json.bytes(ObjectChange.of(type, object)), ObjectChange.class);
    }
}
