package io.podfall.apiserver.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.apiserver.registry.Registry;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.apiserver.registry.SystemNamespaces;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Protobuf bodies as kubectl 1.32.4 sent them (captured, in {@code kubectl-1.32-protobuf-bodies.tsv}) decode to the
 * JSON kubectl sends for the same command when it speaks JSON (as kubectl 1.20 does).
 */
class KubernetesProtobufTest {
    private static final Map<String, byte[]> CAPTURED = captured();
    private static final String PROTOBUF = "application/vnd.kubernetes.protobuf";

    @Test
    void createNamespace() {
        assertDecodes("kubectl create namespace team-a", """
                {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"},"spec":{},"status":{}}""");
    }

    @Test
    void createServiceClusterIpWithAPortMapping() {
        assertDecodes("kubectl create service clusterip web --tcp=80:8080", """
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{"app":"web"}},
                 "spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"web"},
                         "type":"ClusterIP"},
                 "status":{"loadBalancer":{}}}""");
    }

    @Test
    void createServiceOfEveryType() {
        assertDecodes("kubectl create service clusterip headless --clusterip=None", """
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"headless","labels":{"app":"headless"}},
                 "spec":{"selector":{"app":"headless"},"clusterIP":"None","type":"ClusterIP"},"status":{"loadBalancer":{}}}""");
        assertDecodes("kubectl create service nodeport np --tcp=80:8080 --node-port=30080", """
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"np","labels":{"app":"np"}},
                 "spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080,"nodePort":30080}],
                         "selector":{"app":"np"},"type":"NodePort"},"status":{"loadBalancer":{}}}""");
        assertDecodes("kubectl create service loadbalancer lb --tcp=443:https", """
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"lb","labels":{"app":"lb"}},
                 "spec":{"ports":[{"name":"443-https","protocol":"TCP","port":443,"targetPort":"https"}],
                         "selector":{"app":"lb"},"type":"LoadBalancer"},"status":{"loadBalancer":{}}}""");
        assertDecodes("kubectl create service externalname ext --external-name=example.com", """
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"ext","labels":{"app":"ext"}},
                 "spec":{"selector":{"app":"ext"},"type":"ExternalName","externalName":"example.com"},"status":{"loadBalancer":{}}}""");
    }

    @Test
    void createDeployment() {
        assertDecodes("kubectl create deployment web --image=nginx:1.27", """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
                 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
                         "template":{"metadata":{"labels":{"app":"web"}},
                                     "spec":{"containers":[{"name":"nginx","image":"nginx:1.27","resources":{}}]}},
                         "strategy":{}},
                 "status":{}}""");
        assertDecodes(
                "kubectl create deployment web2 --image=nginx:1.27 --image=busybox --replicas=3 --port=80 -n team-a",
                """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web2","namespace":"team-a","labels":{"app":"web2"}},
                 "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web2"}},
                         "template":{"metadata":{"labels":{"app":"web2"}},
                                     "spec":{"containers":[{"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80}],"resources":{}},
                                                           {"name":"busybox","image":"busybox","resources":{}}]}},
                         "strategy":{}},
                 "status":{}}""");
        assertDecodes("kubectl create deployment web3 --image=nginx -- sleep 10", """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web3","labels":{"app":"web3"}},
                 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web3"}},
                         "template":{"metadata":{"labels":{"app":"web3"}},
                                     "spec":{"containers":[{"name":"nginx","image":"nginx","command":["sleep","10"],"resources":{}}]}},
                         "strategy":{}},
                 "status":{}}""");
    }

    @Test
    void createPodDisruptionBudget() {
        assertDecodes("kubectl create pdb web-pdb --selector=app=web --min-available=2", """
                {"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web-pdb"},
                 "spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"web"}}},"status":{}}""");
        assertDecodes("kubectl create pdb web-pdb2 --selector=app=web --max-unavailable=25% -n team-a", """
                {"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web-pdb2","namespace":"team-a"},
                 "spec":{"selector":{"matchLabels":{"app":"web"}},"maxUnavailable":"25%"},"status":{}}""");
    }

    @Test
    void theRegistryStoresWhatWasDecodedLikeAJsonBody() {
        Registry registry = new Registry();
        RegistryState state = registry.newState();
        SystemNamespaces.missing(state, Instant.EPOCH).forEach(e -> registry.handle(state, e, Instant.EPOCH));
        Map<String, String> resources = new LinkedHashMap<>();
        resources.put("kubectl create namespace team-a", "namespaces");
        resources.put("kubectl create service clusterip web --tcp=80:8080", "services");
        resources.put(
                "kubectl create deployment web2 --image=nginx:1.27 --image=busybox --replicas=3 --port=80 -n team-a",
                "deployments");

        resources.forEach((command, resource) -> {
            ObjectNode object = RequestBodies.object(
                    ResourceType.byPlural(resource), PROTOBUF + "; charset=binary", CAPTURED.get(command));
            String namespace = resource.equals("namespaces") ? "" : "team-a";
            Effects effects = registry.handle(
                    state,
                    Event.request(
                            "r-" + resource,
                            Registry.SOURCE,
                            EventTypes.CREATION_REQUESTED,
                            resource,
                            Instant.EPOCH,
                            null,
                            new CreationRequest(resource, namespace, object)),
                    Instant.EPOCH);
            assertEquals(
                    List.of(EventTypes.OBJECT_CREATED),
                    effects.events().stream().map(Event::type).toList(),
                    command);
        });
        JsonNode deployment =
                Json.tree(state.get(ResourceType.DEPLOYMENTS, "team-a", "web2").orElseThrow());
        assertEquals(3, deployment.path("spec").path("replicas").asInt());
        assertEquals(
                80,
                deployment
                        .path("spec")
                        .path("template")
                        .path("spec")
                        .path("containers")
                        .get(0)
                        .path("ports")
                        .get(0)
                        .path("containerPort")
                        .asInt());
        assertEquals(
                "TCP",
                Json.tree(state.get(ResourceType.SERVICES, "team-a", "web").orElseThrow())
                        .path("spec")
                        .path("ports")
                        .get(0)
                        .path("protocol")
                        .asText());
    }

    @Test
    void aFieldThatIsSetButNotDecodedIsRefusedNotDropped() {
        // A namespace whose spec carries field 9, a varint 1.
        byte[] body = envelope(
                "v1",
                "Namespace",
                concat(field(1, field(1, "team-a".getBytes(StandardCharsets.UTF_8))), field(2, new byte[] {
                    (byte) (9 << 3), 1
                })));

        StatusError e = assertThrows(StatusError.class, () -> KubernetesProtobuf.decode(body));

        assertEquals(415, e.status().getCode());
        assertTrue(
                e.status().getMessage().contains("field 9 of NamespaceSpec is set"),
                e.status().getMessage());
    }

    @Test
    void aFieldThatIsNotDecodedButHoldsOnlyZerosIsIgnored() {
        // Field 9 holds 0; field 10 an empty message; field 11 a message whose only field is 0.
        byte[] spec = concat(new byte[] {(byte) (9 << 3), 0}, field(10, new byte[0]), field(11, new byte[] {8, 0}));
        byte[] body = envelope(
                "v1",
                "Namespace",
                concat(field(1, field(1, "team-a".getBytes(StandardCharsets.UTF_8))), field(2, spec)));

        assertEquals(
                Json.read(
                        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team-a\"},\"spec\":{}}"
                                .getBytes()),
                KubernetesProtobuf.decode(body));
    }

    @Test
    void aKindThatIsNotDecodedIs415AndABodyThatIsNoKubernetesProtobufIs400() {
        StatusError pod =
                assertThrows(StatusError.class, () -> KubernetesProtobuf.decode(envelope("v1", "Pod", new byte[0])));
        StatusError json =
                assertThrows(StatusError.class, () -> KubernetesProtobuf.decode("{\"kind\":\"Pod\"}".getBytes()));
        byte[] captured = CAPTURED.get("kubectl create namespace team-a");
        byte[] truncated = Arrays.copyOf(captured, captured.length - 5);
        StatusError cut = assertThrows(StatusError.class, () -> KubernetesProtobuf.decode(truncated));

        assertEquals(415, pod.status().getCode());
        assertTrue(
                pod.status().getMessage().contains("a protobuf Pod of v1 is not decoded"),
                pod.status().getMessage());
        assertEquals(400, json.status().getCode());
        assertEquals(400, cut.status().getCode());
        assertTrue(
                cut.status().getMessage().startsWith("the protobuf body of the request is malformed"),
                cut.status().getMessage());
    }

    @Test
    void otherMediaTypesAreStill415() {
        StatusError e = assertThrows(
                StatusError.class,
                () -> RequestBodies.object(
                        ResourceType.PODS, "application/yaml", "kind: Pod".getBytes(StandardCharsets.UTF_8)));

        assertEquals(415, e.status().getCode());
        assertEquals(
                "the body of the request was in an unknown format - accepted media types include: application/json, "
                        + "application/vnd.kubernetes.protobuf (got application/yaml)",
                e.status().getMessage());
    }

    // --- helpers ---

    private static void assertDecodes(String command, String json) {
        byte[] body = CAPTURED.get(command);
        assertTrue(body != null, "captured: " + command);
        assertEquals(Json.read(json.getBytes(StandardCharsets.UTF_8)), KubernetesProtobuf.decode(body), command);
    }

    private static Map<String, byte[]> captured() {
        Map<String, byte[]> bodies = new LinkedHashMap<>();
        try (InputStream in = KubernetesProtobufTest.class.getResourceAsStream("/kubectl-1.32-protobuf-bodies.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    String[] parts = line.split("\t");
                    bodies.put(parts[0], Base64.getDecoder().decode(parts[1]));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bodies;
    }

    /** "k8s\0" and a runtime.Unknown {typeMeta = 1, raw = 2}. */
    private static byte[] envelope(String apiVersion, String kind, byte[] raw) {
        byte[] typeMeta = concat(
                field(1, apiVersion.getBytes(StandardCharsets.UTF_8)), field(2, kind.getBytes(StandardCharsets.UTF_8)));
        return concat(new byte[] {'k', '8', 's', 0}, field(1, typeMeta), field(2, raw));
    }

    /** A length-delimited field (short values only: a one-byte length). */
    private static byte[] field(int number, byte[] value) {
        return concat(new byte[] {(byte) (number << 3 | 2), (byte) value.length}, value);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
