package io.podfall.apiserver.registry;

import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Many malformed or invalid objects, from a seeded generator (the same cases on every run): each is refused with the
 * Status upstream gives it (400 BadRequest for what cannot be read as the kind, 422 Invalid with one cause per field
 * error for what breaks a rule), a refusal writes nothing, and the registry goes on as before.
 */
class ValidationFuzzTest extends RegistryFixture {
    private static final long SEED = 20250301L;
    private static final int CASES = 400;
    private static final String NAME_ALPHABET = "abcz019-.-_AZ ~é/";
    private static final String POD = """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},
             "spec":{"terminationGracePeriodSeconds":30,"containers":[{"name":"app","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}""";
    private static final String DEPLOYMENT = """
            {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
             "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
                     "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}""";

    private final Random random = new Random(SEED);
    private int created;

    @Test
    void everyNameIsAcceptedExactlyWhenItFollowsTheRuleOfItsKind() {
        for (int i = 0; i < CASES; i++) {
            String name = randomName();
            expectNameRule("pods", "default", name, isDns1123Subdomain(name));
            expectNameRule("deployments", "default", name, isDns1123Subdomain(name));
            expectNameRule("namespaces", "", name, isDns1123Label(name) && !SystemNamespaces.NAMES.contains(name));
            expectNameRule("services", "default", name, isDns1123Label(name) && Character.isLetter(name.charAt(0)));
        }
        assertTrue(created > 0, "the generator made valid names too");
        assertStillWorks();
    }

    @Test
    void missingRequiredFieldsAreInvalidWithACausePerField() {
        Map<String, String> requiredPaths = Map.of(
                "/spec/containers", "spec.containers",
                "/spec/containers/0/name", "spec.containers[0].name",
                "/spec/containers/0/image", "spec.containers[0].image",
                "/metadata/name", "metadata.name");
        requiredPaths.forEach((path, field) -> {
            Status status = refused("pods", "default", without(json(POD), path), 422, "Invalid");
            assertTrue(causes(status).contains(field + " FieldValueRequired"), path + ": " + causes(status));
        });
        Status selector =
                refused("deployments", "default", without(json(DEPLOYMENT), "/spec/selector"), 422, "Invalid");
        assertTrue(
                causes(selector).contains("spec.selector FieldValueRequired"),
                causes(selector).toString());
        Status template =
                refused("deployments", "default", without(json(DEPLOYMENT), "/spec/template/spec"), 422, "Invalid");
        assertTrue(
                causes(template).contains("spec.template FieldValueRequired")
                        || causes(template).contains("spec.template.spec.containers FieldValueRequired"),
                causes(template).toString());
        for (int i = 0; i < CASES / 10; i++) {
            ObjectNode d = (ObjectNode) json(DEPLOYMENT);
            int replicas = -1 - random.nextInt(Integer.MAX_VALUE);
            d.withObjectProperty("spec").put("replicas", replicas);
            Status status = refused("deployments", "default", d, 422, "Invalid");
            assertEquals(List.of("spec.replicas FieldValueInvalid"), causes(status));
        }
        assertStillWorks();
    }

    @Test
    void whatCannotBeReadAsTheKindIsABadRequest() {
        JsonNodeFactory f = Json.MAPPER.getNodeFactory();
        List<JsonNode> notObjects = List.of(
                f.arrayNode().add(json(POD)), f.textNode("pod"), f.numberNode(42), f.booleanNode(true), f.nullNode());
        for (JsonNode body : notObjects) {
            refused("pods", "default", body, 400, "BadRequest");
        }
        for (String[] kind : new String[][] {{"v1", "Service"}, {"v2", "Pod"}, {"apps/v1", "Pod"}, {"v1", "pod"}}) {
            ObjectNode pod = (ObjectNode) json(POD);
            pod.put("apiVersion", kind[0]).put("kind", kind[1]);
            Status status = refused("pods", "default", pod, 400, "BadRequest");
            assertTrue(status.getMessage().contains("does not match the expected"), status.getMessage());
        }
        for (int i = 0; i < CASES / 4; i++) {
            refused("pods", "default", withWrongType(json(POD)), 400, "BadRequest");
        }
        assertStillWorks();
    }

    @Test
    void randomlyMangledObjectsAreCreatedOrRefusedWithAStatusNeverAFailureAndNeverHalfWritten() {
        for (int i = 0; i < CASES; i++) {
            boolean pod = random.nextBoolean();
            JsonNode object = mangle(json(pod ? POD : DEPLOYMENT));
            if (object.path("metadata") instanceof ObjectNode metadata) {
                // A name of its own, so that no case meets an earlier one.
                metadata.put("name", "m-" + i);
            }
            long writesBefore = writes();
            Effects effects = create(pod ? "pods" : "deployments", "default", object);
            if (types(effects).equals(List.of(EventTypes.OBJECT_CREATED))) {
                assertEquals(writesBefore + 1, writes());
                created++;
                continue;
            }
            Status status = rejection(effects);
            assertTrue(
                    status.getCode() == 400 && status.getReason().equals("BadRequest")
                            || status.getCode() == 422
                                    && status.getReason().equals("Invalid")
                                    && !status.getDetails().getCauses().isEmpty(),
                    status.getCode() + " " + status.getReason() + ": " + status.getMessage());
            assertEquals(writesBefore, writes(), "a refusal writes nothing");
        }
        assertStillWorks();
    }

    @Test
    void aNegativeGracePeriodIsTreatedAsOneSecondAsUpstreamDoes() {
        for (int i = 0; i < CASES / 20; i++) {
            String name = "web-" + i;
            create("pods", "default", aPod(name).onNode("node-1").build());
            long grace = -1 - random.nextInt(1_000_000);

            Effects effects = delete(
                    "pods",
                    "default",
                    name,
                    new DeleteOptionsBuilder().withGracePeriodSeconds(grace).build());

            assertEquals(List.of(EventTypes.OBJECT_MARKED_TERMINATING), types(effects), "grace " + grace);
            assertEquals(
                    1L,
                    effects.events()
                            .get(0)
                            .data(ObjectChange.class)
                            .object()
                            .path("metadata")
                            .path("deletionGracePeriodSeconds")
                            .asLong());
        }
    }

    @Test
    void anUnknownPropagationPolicyIsInvalidAndDeletesNothing() {
        create("pods", "default", aPod("web").onNode("node-1").build());
        for (int i = 0; i < CASES / 10; i++) {
            String policy = randomName();
            if (List.of("Foreground", "Background", "Orphan").contains(policy)) {
                continue;
            }
            Effects effects = delete(
                    "pods",
                    "default",
                    "web",
                    new DeleteOptionsBuilder().withPropagationPolicy(policy).build());
            Status status = rejection(effects);
            assertEquals(422, status.getCode());
            assertEquals(List.of("propagationPolicy FieldValueNotSupported"), causes(status));
        }
        assertEquals(null, stored("web").getMetadata().getDeletionTimestamp());
    }

    // --- the oracle: the name rules, written independently of the registry's regexes ---

    private static boolean isDns1123Label(String s) {
        return s.length() <= 63 && isLabelShaped(s);
    }

    /** Dot-separated labels of any length each, at most 253 characters in all. */
    private static boolean isDns1123Subdomain(String s) {
        return s.length() <= 253 && List.of(s.split("\\.", -1)).stream().allMatch(ValidationFuzzTest::isLabelShaped);
    }

    /** Lower-case letters, digits and '-', neither first nor last. */
    private static boolean isLabelShaped(String s) {
        return !s.isEmpty()
                && !s.startsWith("-")
                && !s.endsWith("-")
                && s.chars().allMatch(c -> c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-');
    }

    // --- the generator ---

    /** Mostly short names from an alphabet of valid and invalid characters; sometimes very long ones. */
    private String randomName() {
        int length = random.nextInt(10) == 0 ? 60 + random.nextInt(260) : random.nextInt(12);
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < length; i++) {
            name.append(
                    random.nextInt(3) == 0
                            ? NAME_ALPHABET.charAt(random.nextInt(NAME_ALPHABET.length()))
                            : (char) ('a' + random.nextInt(26)));
        }
        return name.toString();
    }

    /** One to three random edits: a field removed, or a value replaced by one of another JSON type. */
    private JsonNode mangle(JsonNode object) {
        int edits = 1 + random.nextInt(3);
        for (int i = 0; i < edits; i++) {
            List<String> paths = paths(object, "");
            String path = paths.get(random.nextInt(paths.size()));
            object = random.nextBoolean() ? without(object, path) : replaced(object, path, randomValue());
        }
        return object;
    }

    /** A value of a type the field (some field) does not expect: a string where a number goes, and so on. */
    private JsonNode withWrongType(JsonNode pod) {
        List<String> typed = List.of(
                "/spec/terminationGracePeriodSeconds",
                "/spec/containers",
                "/spec/containers/0/ports/0/containerPort",
                "/metadata/labels",
                "/spec/containers/0/ports");
        String path = typed.get(random.nextInt(typed.size()));
        JsonNode value = path.endsWith("s") && !path.endsWith("Seconds")
                ? Json.MAPPER.getNodeFactory().textNode("x" + random.nextInt(100))
                : Json.MAPPER.getNodeFactory().arrayNode().add(random.nextInt());
        return replaced(pod, path, value);
    }

    private JsonNode randomValue() {
        JsonNodeFactory f = Json.MAPPER.getNodeFactory();
        return switch (random.nextInt(7)) {
            case 0 -> f.textNode(randomName());
            case 1 -> f.numberNode(random.nextLong());
            case 2 -> f.numberNode(-random.nextInt(100));
            case 3 -> f.booleanNode(random.nextBoolean());
            case 4 -> f.nullNode();
            case 5 -> f.arrayNode().add(randomName());
            default -> f.objectNode().put(randomName(), randomName());
        };
    }

    private static List<String> paths(JsonNode node, String at) {
        List<String> out = new ArrayList<>();
        if (node.isObject()) {
            node.fieldNames().forEachRemaining(k -> {
                out.add(at + "/" + k);
                out.addAll(paths(node.get(k), at + "/" + k));
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                out.add(at + "/" + i);
                out.addAll(paths(node.get(i), at + "/" + i));
            }
        }
        return out;
    }

    private static JsonNode without(JsonNode object, String path) {
        return edit(object, path, null);
    }

    private static JsonNode replaced(JsonNode object, String path, JsonNode value) {
        return edit(object, path, value);
    }

    /** A copy with the value at a JSON pointer replaced, or removed when {@code value} is null. */
    private static JsonNode edit(JsonNode object, String path, JsonNode value) {
        JsonNode copy = object.deepCopy();
        int slash = path.lastIndexOf('/');
        JsonNode parent = copy.at(path.substring(0, slash));
        String last = path.substring(slash + 1);
        if (parent instanceof ObjectNode o) {
            if (value == null) {
                o.remove(last);
            } else {
                o.set(last, value);
            }
        } else if (parent instanceof ArrayNode a) {
            if (value == null) {
                a.remove(Integer.parseInt(last));
            } else {
                a.set(Integer.parseInt(last), value);
            }
        }
        return copy;
    }

    // --- assertions ---

    private void expectNameRule(String resource, String namespace, String name, boolean valid) {
        JsonNode object = json(
                resource.equals("deployments")
                        ? DEPLOYMENT
                        : resource.equals("pods") ? POD : "{\"metadata\":{},\"spec\":{\"ports\":[{\"port\":80}]}}");
        ((ObjectNode) object).withObjectProperty("metadata").put("name", name);
        long writesBefore = writes();
        Effects effects = create(resource, namespace, object);
        boolean exists = effects.events().size() == 1
                && effects.events().get(0).is(EventTypes.REQUEST_REJECTED)
                && effects.events().get(0).data(RequestRejection.class).status().getCode() == 409;
        if (valid && !exists) {
            assertEquals(List.of(EventTypes.OBJECT_CREATED), types(effects), resource + " " + quoted(name));
            created++;
            return;
        }
        if (valid) {
            return;
        }
        Status status = refused(effects, 422, "Invalid");
        assertFalse(status.getDetails().getCauses().isEmpty());
        assertTrue(
                causes(status).stream().allMatch(c -> c.startsWith("metadata.name ")),
                resource + " " + quoted(name) + ": " + causes(status));
        assertEquals(writesBefore, writes());
    }

    private Status refused(String resource, String namespace, JsonNode object, int code, String reason) {
        long writesBefore = writes();
        Status status = refused(create(resource, namespace, object), code, reason);
        assertEquals(writesBefore, writes(), "a refusal writes nothing");
        return status;
    }

    private static Status refused(Effects effects, int code, String reason) {
        Status status = rejection(effects);
        assertEquals(code, status.getCode(), status.getMessage());
        assertEquals(reason, status.getReason());
        assertEquals("Failure", status.getStatus());
        assertEquals("Status", status.getKind());
        return status;
    }

    private static List<String> causes(Status status) {
        return status.getDetails() == null
                ? List.of()
                : status.getDetails().getCauses().stream()
                        .map(c -> c.getField() + " " + c.getReason())
                        .toList();
    }

    /** After all that, a valid object is created with the next resourceVersion, as if nothing had happened. */
    private void assertStillWorks() {
        long next = writes() + 1;
        Effects effects = create("pods", "default", aPod("still-works").build());

        assertEquals(List.of(EventTypes.OBJECT_CREATED), types(effects));
        assertEquals(
                rv(next),
                effects.events()
                        .get(0)
                        .data(ObjectChange.class)
                        .object()
                        .path("metadata")
                        .path("resourceVersion")
                        .asText());
    }

    private static String quoted(String s) {
        return "\"" + s + "\"";
    }
}
