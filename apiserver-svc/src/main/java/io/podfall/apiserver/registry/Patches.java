package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The three patch types of {@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go}, applied to an object
 * as stored (its JSON): JSON merge patch (RFC 7386), JSON patch (RFC 6902, by zjsonpatch) and strategic merge patch
 * ({@code staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go}) with the merge keys of the core/v1 types.
 * Pure; a patch that cannot be applied is refused with the Status upstream answers.
 */
final class Patches {
    private static final String PATCH = "$patch";
    private static final String RETAIN_KEYS = "$retainKeys";
    private static final String SET_ELEMENT_ORDER = "$setElementOrder/";
    private static final String DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList/";
    /** A list of primitives with {@code patchStrategy:"merge"}: a set, the patch's items are added. */
    private static final String PRIMITIVE_SET = "";

    /**
     * The lists that are merged rather than replaced, by their path of field names (list levels left out), with their
     * {@code patchMergeKey} ({@code staging/src/k8s.io/api/core/v1/types.go}, {@code .../apps/v1/types.go},
     * {@code ObjectMeta} in {@code staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go}). Every other list is
     * replaced whole.
     */
    private static final Map<String, String> META_MERGE_KEYS =
            Map.of("metadata.finalizers", PRIMITIVE_SET, "metadata.ownerReferences", "uid");

    private static final Map<String, String> POD_MERGE_KEYS = podMergeKeys();
    private static final Map<String, String> NODE_MERGE_KEYS = with(
            META_MERGE_KEYS,
            Map.of(
                    "spec.podCIDRs", PRIMITIVE_SET,
                    "status.conditions", "type",
                    // NodeStatus.addresses is merged by type upstream (a known quirk, kept for compatibility).
                    "status.addresses", "type"));
    /** A workload's pod template merges like a pod's spec, one level down. */
    private static final Map<String, String> WORKLOAD_MERGE_KEYS = workloadMergeKeys();

    private static final Map<String, String> SERVICE_MERGE_KEYS = with(
            META_MERGE_KEYS,
            Map.of(
                    "spec.ports", "port",
                    "status.conditions", "type"));
    /** A Namespace's and a PodDisruptionBudget's: only their status conditions merge, by type. */
    private static final Map<String, String> CONDITIONS_MERGE_KEYS =
            with(META_MERGE_KEYS, Map.of("status.conditions", "type"));

    private Patches() {}

    /** The object after the patch, not yet decoded or validated. */
    static JsonNode apply(String patchType, ResourceType type, JsonNode original, JsonNode patch) {
        return apply(patchType, mergeKeys(type), original, patch);
    }

    /** A patch of an object whose merge keys are given (none for an autoscaling/v1 Scale). */
    static JsonNode apply(String patchType, Map<String, String> mergeKeys, JsonNode original, JsonNode patch) {
        return switch (patchType) {
            case PatchRequest.MERGE -> mergePatch(original, requireObject(patch));
            case PatchRequest.JSON -> jsonPatch(original, patch);
            case PatchRequest.STRATEGIC ->
                strategicMerge((ObjectNode) original.deepCopy(), requireObject(patch), "", mergeKeys);
            default -> throw StatusError.unsupportedMediaType(PatchRequest.TYPES);
        };
    }

    static Map<String, String> mergeKeys(ResourceType type) {
        return switch (type) {
            case PODS -> POD_MERGE_KEYS;
            case NODES -> NODE_MERGE_KEYS;
            case DEPLOYMENTS, REPLICASETS -> WORKLOAD_MERGE_KEYS;
            case SERVICES -> SERVICE_MERGE_KEYS;
            case NAMESPACES, PODDISRUPTIONBUDGETS -> CONDITIONS_MERGE_KEYS;
            // Endpoints' subsets, everything of an Event and a Lease's spec have no patch strategy: replaced whole.
            case ENDPOINTS, EVENTS, LEASES -> META_MERGE_KEYS;
        };
    }

    /** RFC 7386: objects merge recursively, null removes a member, anything else replaces. */
    static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject()
                ? ((ObjectNode) target).deepCopy()
                : JsonNodeFactory.instance.objectNode();
        patch.fields().forEachRemaining(f -> {
            if (f.getValue().isNull()) {
                result.remove(f.getKey());
            } else {
                result.set(f.getKey(), mergePatch(result.get(f.getKey()), f.getValue()));
            }
        });
        return result;
    }

    /** RFC 6902. A patch that is no list of operations is a bad request; one that fails to apply is 422. */
    static JsonNode jsonPatch(JsonNode original, JsonNode patch) {
        if (!patch.isArray()) {
            throw StatusError.badRequest("json: cannot unmarshal "
                    + (patch.isObject() ? "object" : patch.getNodeType().name().toLowerCase())
                    + " into Go value of type jsonpatch.Patch");
        }
        try {
            return JsonPatch.apply(patch, original);
        } catch (RuntimeException e) {
            throw StatusError.unprocessable(e.getMessage());
        }
    }

    private static ObjectNode requireObject(JsonNode patch) {
        if (!patch.isObject()) {
            throw StatusError.badRequest("the patch must be a JSON object, got "
                    + patch.getNodeType().name().toLowerCase());
        }
        return (ObjectNode) patch;
    }

    // --- strategic merge patch ---

    /**
     * Merges {@code patch} into {@code original} (changed in place): maps recursively, null removes a key, lists by
     * their merge key or as a set or replaced whole; the directives {@code $patch} (replace, delete),
     * {@code $retainKeys}, {@code $setElementOrder/<list>} and {@code $deleteFromPrimitiveList/<list>} are applied and
     * never stored.
     *
     * @return the merged map, or null if the patch deletes it ({@code $patch: delete})
     */
    private static ObjectNode strategicMerge(
            ObjectNode original, ObjectNode patch, String path, Map<String, String> mergeKeys) {
        String directive = patch.path(PATCH).asText("merge");
        switch (directive) {
            case "delete" -> {
                return null;
            }
            case "replace" -> {
                ObjectNode replacement = patch.deepCopy();
                replacement.remove(PATCH);
                return strategicMerge(JsonNodeFactory.instance.objectNode(), replacement, path, mergeKeys);
            }
            case "merge" -> {}
            default -> throw StatusError.badRequest("Unknown patch type: " + directive + " in map: " + patch);
        }
        Map<String, JsonNode> orders = new LinkedHashMap<>();
        Map<String, JsonNode> deletions = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            String key = f.getKey();
            JsonNode value = f.getValue();
            if (key.equals(PATCH) || key.equals(RETAIN_KEYS)) {
                continue;
            }
            if (key.startsWith(SET_ELEMENT_ORDER)) {
                orders.put(key.substring(SET_ELEMENT_ORDER.length()), value);
            } else if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
                deletions.put(key.substring(DELETE_FROM_PRIMITIVE_LIST.length()), value);
            } else if (value.isNull()) {
                original.remove(key);
            } else if (value.isObject()) {
                JsonNode existing = original.get(key);
                ObjectNode base = existing != null && existing.isObject()
                        ? (ObjectNode) existing
                        : JsonNodeFactory.instance.objectNode();
                ObjectNode merged = strategicMerge(base, (ObjectNode) value, child(path, key), mergeKeys);
                if (merged == null) {
                    original.remove(key);
                } else {
                    original.set(key, merged);
                }
            } else if (value.isArray()) {
                JsonNode existing = original.get(key);
                original.set(
                        key,
                        mergeList(
                                existing != null && existing.isArray()
                                        ? (ArrayNode) existing
                                        : JsonNodeFactory.instance.arrayNode(),
                                (ArrayNode) value,
                                child(path, key),
                                mergeKeys));
            } else {
                original.set(key, value);
            }
        }
        deletions.forEach((key, values) -> {
            if (original.get(key) instanceof ArrayNode list) {
                for (int i = list.size() - 1; i >= 0; i--) {
                    if (contains(values, list.get(i))) {
                        list.remove(i);
                    }
                }
            }
        });
        orders.forEach((key, order) -> {
            if (original.get(key) instanceof ArrayNode list) {
                original.set(key, ordered(list, order, mergeKeys.get(child(path, key))));
            }
        });
        if (patch.get(RETAIN_KEYS) instanceof ArrayNode retained) {
            original.retain(retainedKeys(retained));
        }
        return original;
    }

    private static ArrayNode mergeList(
            ArrayNode original, ArrayNode patch, String path, Map<String, String> mergeKeys) {
        String mergeKey = mergeKeys.get(path);
        List<JsonNode> items = new ArrayList<>();
        patch.forEach(items::add);
        boolean replace = items.removeIf(i ->
                i.isObject() && i.size() == 1 && "replace".equals(i.path(PATCH).asText()));
        ArrayNode result = JsonNodeFactory.instance.arrayNode();
        if (mergeKey == null || replace) {
            // No patch strategy (or $patch: replace): the patch's list replaces the stored one.
            items.forEach(i -> result.add(
                    i.isObject()
                            ? strategicMerge(JsonNodeFactory.instance.objectNode(), (ObjectNode) i, path, mergeKeys)
                            : i));
            return result;
        }
        result.addAll(original.deepCopy());
        if (mergeKey.equals(PRIMITIVE_SET)) {
            items.stream().filter(i -> !contains(result, i)).forEach(result::add);
            return result;
        }
        for (JsonNode item : items) {
            if (!item.isObject() || !item.has(mergeKey)) {
                throw StatusError.badRequest("map: " + item + " does not contain declared merge key: " + mergeKey);
            }
            int at = indexOf(result, mergeKey, item.get(mergeKey));
            boolean delete = "delete".equals(item.path(PATCH).asText());
            if (delete) {
                if (at >= 0) {
                    result.remove(at);
                }
                continue;
            }
            ObjectNode base = at >= 0 ? (ObjectNode) result.get(at) : JsonNodeFactory.instance.objectNode();
            ObjectNode merged = strategicMerge(base, (ObjectNode) item, path, mergeKeys);
            if (at >= 0) {
                result.set(at, merged);
            } else {
                result.add(merged);
            }
        }
        return result;
    }

    /**
     * {@code $setElementOrder}: the items it names in its order, then the ones only the server had, in their stored
     * order (upstream interleaves those by their old positions; both keep the client's order).
     */
    private static ArrayNode ordered(ArrayNode list, JsonNode order, String mergeKey) {
        ArrayNode result = JsonNodeFactory.instance.arrayNode();
        List<JsonNode> rest = new ArrayList<>();
        list.forEach(rest::add);
        for (JsonNode wanted : order) {
            JsonNode id = mergeKey == null || mergeKey.equals(PRIMITIVE_SET) ? wanted : wanted.get(mergeKey);
            for (Iterator<JsonNode> it = rest.iterator(); it.hasNext(); ) {
                JsonNode item = it.next();
                JsonNode itemId = mergeKey == null || mergeKey.equals(PRIMITIVE_SET) ? item : item.get(mergeKey);
                if (id != null && id.equals(itemId)) {
                    result.add(item);
                    it.remove();
                    break;
                }
            }
        }
        rest.forEach(result::add);
        return result;
    }

    private static List<String> retainedKeys(ArrayNode retained) {
        List<String> keys = new ArrayList<>();
        retained.forEach(k -> keys.add(k.asText()));
        return keys;
    }

    private static int indexOf(ArrayNode list, String mergeKey, JsonNode id) {
        for (int i = 0; i < list.size(); i++) {
            if (id.equals(list.get(i).get(mergeKey))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean contains(JsonNode list, JsonNode value) {
        for (JsonNode v : list) {
            if (v.equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static Map<String, String> with(Map<String, String> a, Map<String, String> b) {
        Map<String, String> keys = new LinkedHashMap<>(a);
        keys.putAll(b);
        return Map.copyOf(keys);
    }

    private static Map<String, String> workloadMergeKeys() {
        Map<String, String> keys = new LinkedHashMap<>(META_MERGE_KEYS);
        POD_MERGE_KEYS.forEach((path, key) -> {
            if (path.startsWith("spec.")) {
                keys.put("spec.template." + path, key);
            }
        });
        // DeploymentCondition and ReplicaSetCondition are merged by type.
        keys.put("status.conditions", "type");
        return Map.copyOf(keys);
    }

    private static Map<String, String> podMergeKeys() {
        Map<String, String> keys = new LinkedHashMap<>(META_MERGE_KEYS);
        for (String containers : List.of("spec.containers", "spec.initContainers", "spec.ephemeralContainers")) {
            keys.put(containers, "name");
            keys.put(containers + ".env", "name");
            keys.put(containers + ".ports", "containerPort");
            keys.put(containers + ".volumeMounts", "mountPath");
            keys.put(containers + ".volumeDevices", "devicePath");
        }
        keys.put("spec.volumes", "name");
        keys.put("spec.imagePullSecrets", "name");
        keys.put("spec.hostAliases", "ip");
        keys.put("spec.topologySpreadConstraints", "topologyKey");
        keys.put("spec.schedulingGates", "name");
        keys.put("spec.resourceClaims", "name");
        keys.put("status.conditions", "type");
        keys.put("status.podIPs", "ip");
        keys.put("status.hostIPs", "ip");
        return Map.copyOf(keys);
    }
}
