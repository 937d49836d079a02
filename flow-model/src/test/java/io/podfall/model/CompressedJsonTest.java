package io.podfall.model;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CompressedJsonTest {

    @Test
    void aRunningPodComesBackByteForByteInAFractionOfItsSize() throws IOException {
        // a pod of P4's Deployment as the API server stored it: its names, uids, IPs and times are its own
        byte[] json;
        try (InputStream in = getClass().getResourceAsStream("running-pod.json")) {
            json = in.readAllBytes();
        }

        byte[] compressed = CompressedJson.compress(json);

        assertArrayEquals(json, CompressedJson.decompress(compressed));
        assertTrue(compressed.length < json.length / 4, compressed.length + " bytes of " + json.length);
    }

    @Test
    void jsonUnlikeTheDictionaryComesBackToo() {
        byte[] lease = """
                {"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"node-1",\
                "namespace":"kube-node-lease"},"spec":{"holderIdentity":"node-1","leaseDurationSeconds":40}}""".getBytes(StandardCharsets.UTF_8);
        byte[] empty = "{}".getBytes(StandardCharsets.UTF_8);

        assertArrayEquals(lease, CompressedJson.decompress(CompressedJson.compress(lease)));
        assertArrayEquals(empty, CompressedJson.decompress(CompressedJson.compress(empty)));
    }

    @Test
    void theSameJsonCompressesToTheSameBytes() {
        byte[] json = Json.bytes(aPod("a").withUid("u-1").onNode("node-1").build());

        assertArrayEquals(CompressedJson.compress(json), CompressedJson.compress(json.clone()));
    }
}
