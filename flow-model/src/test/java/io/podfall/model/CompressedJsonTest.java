package io.podfall.model;

import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompressedJsonTest {

    @Test
    void aRunningPodComesBackByteForByteInAFractionOfItsSize() {
        byte[] json = Json.bytes(running(aPod("web-5d8f7c9b4d-k8q2w").withUid("3f1c2b9e-7a41-4c55-9d0e-12ab34cd56ef")
                .onNode("node-17").withContainer("app").build()));

        byte[] compressed = CompressedJson.compress(json);

        assertArrayEquals(json, CompressedJson.decompress(compressed));
        // the dictionary holds what pods repeat: what is left is the pod's own names, uid, IPs and times
        assertTrue(compressed.length < json.length / 3, compressed.length + " bytes of " + json.length);
    }

    @Test
    void jsonUnlikeTheDictionaryComesBackToo() {
        byte[] lease = """
                {"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"node-1",\
                "namespace":"kube-node-lease"},"spec":{"holderIdentity":"node-1","leaseDurationSeconds":40}}"""
                .getBytes(StandardCharsets.UTF_8);
        byte[] empty = "{}".getBytes(StandardCharsets.UTF_8);

        assertArrayEquals(lease, CompressedJson.decompress(CompressedJson.compress(lease)));
        assertArrayEquals(empty, CompressedJson.decompress(CompressedJson.compress(empty)));
    }

    @Test
    void theSameJsonCompressesToTheSameBytes() {
        byte[] json = Json.bytes(aPod("a").withUid("u-1").onNode("node-1").build());

        assertArrayEquals(CompressedJson.compress(json), CompressedJson.compress(json.clone()));
    }

    private static Pod running(Pod pod) {
        return new PodBuilder(pod).editMetadata().withLabels(Map.of("app", "web", "pod-template-hash", "5d8f7c9b4d"))
                .withResourceVersion("86215").withCreationTimestamp("2026-11-30T12:39:32Z").endMetadata()
                .withNewStatus().withPhase("Running").withPodIP("10.244.222.23").withHostIP("172.18.0.224")
                .withStartTime("2026-11-30T12:39:34.073601896Z")
                .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True")
                        .withLastTransitionTime("2026-11-30T12:39:34.116852342Z").build())
                .withContainerStatuses(new ContainerStatusBuilder().withName("app").withImage("nginx:1.27")
                        .withContainerID("podfall://dcb390eb-05bc-3567-bdfa-701ff1ddd23b").withReady(true)
                        .withRestartCount(0).withState(new ContainerStateBuilder().withNewRunning()
                                .withStartedAt("2026-11-30T12:39:34.104543555Z").endRunning().build()).build())
                .endStatus().build();
    }
}
