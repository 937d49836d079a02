package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.util.Comparator;

/**
 * What the registry's REST objects ask of etcd: the stored object a request names, the writes (each takes the next
 * resourceVersion and is one fact on the log) and the removal, the uid precondition. Upstream's
 * {@code staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go} ({@code GuaranteedUpdate}, {@code Delete}) and the
 * {@code Preconditions} of {@code staging/src/k8s.io/apiserver/pkg/storage/interfaces.go}, below the generic
 * {@link Store}.
 */
final class Storage {
    private static final Comparator<JsonNode> SAME_VALUE =
            (a, b) -> a.isNumber() && b.isNumber() ? a.decimalValue().compareTo(b.decimalValue()) : a.equals(b) ? 0 : 1;

    private Storage() {}

    static void write(
            RegistryState state, Effects.Builder out, String type, ResourceType resource, HasMetadata object) {
        object.getMetadata().setResourceVersion(Long.toString(state.nextResourceVersion()));
        emitStored(out, type, resource, object, state.put(resource, object, Json.tree(object), out.now()));
    }

    /**
     * A write of an object whose JSON was made before (to compare it with the stored one): the new resourceVersion is
     * set in both, so the object is serialized once. {@code json} has the field already, as an update carries the
     * stored resourceVersion, so setting it there keeps the order of the object's serialization.
     */
    static void write(
            RegistryState state,
            Effects.Builder out,
            String type,
            ResourceType resource,
            HasMetadata object,
            ObjectNode json) {
        String version = Long.toString(state.nextResourceVersion());
        object.getMetadata().setResourceVersion(version);
        setResourceVersion(json, version);
        emitStored(out, type, resource, object, state.put(resource, object, json, out.now()));
    }

    /**
     * Writes {@code next} in place of {@code current} unless it changes nothing: etcd3's GuaranteedUpdate skips such a
     * write (no new revision, nothing to watch). Whether it wrote.
     */
    static boolean writeIfChanged(
            RegistryState state,
            Effects.Builder out,
            String type,
            ResourceType resource,
            HasMetadata current,
            HasMetadata next) {
        ObjectNode json = (ObjectNode) Json.tree(next);
        if (same(state.tree(resource, current), json)) {
            return false;
        }
        write(state, out, type, resource, next, json);
        return true;
    }

    /**
     * Whether two objects' JSON is the same, as etcd compares an update with what it holds: numbers by value, since
     * JSON read back from the store holds a small number as an int where a fabric8 object's tree holds a long.
     */
    static boolean same(JsonNode stored, JsonNode next) {
        return stored.equals(SAME_VALUE, next);
    }

    static void setResourceVersion(ObjectNode json, String version) {
        if (!json.path("metadata").has("resourceVersion")) {
            throw new IllegalStateException("an update of an object without its resourceVersion");
        }
        ((ObjectNode) json.get("metadata")).put("resourceVersion", version);
    }

    /** The fact of a removal: the data an {@link ObjectChange} of {@code json}, the object's last state. */
    static void emit(Effects.Builder out, String type, ResourceType resource, HasMetadata object, JsonNode json) {
        out.emit(
                Registry.SOURCE,
                type,
                subject(resource, object),
                Json.MAPPER
                        .createObjectNode()
                        .put("resource", resource.plural())
                        .set("object", json));
    }

    /**
     * The fact of a write: its data the {@link ObjectChange} the store keeps the object's JSON in, not written again.
     */
    private static void emitStored(
            Effects.Builder out, String type, ResourceType resource, HasMetadata object, byte[] change) {
        out.emitJson(Registry.SOURCE, type, subject(resource, object), change);
    }

    static Pod existingPod(RegistryState state, String namespace, String name) {
        return (Pod) existing(state, ResourceType.PODS, namespace, name);
    }

    /** The object a request names, as stored; 404 NotFound if there is none. */
    static HasMetadata existing(RegistryState state, ResourceType type, String namespace, String name) {
        return state.get(type, namespace, name).orElseThrow(() -> StatusError.notFound(type, name));
    }

    /**
     * The uid precondition of the binding and status writes, and of a namespace's delete, as etcd3's storage reports
     * it.
     */
    static void checkUid(ResourceType type, HasMetadata current, String uid) {
        if (uid != null && !uid.isEmpty() && !uid.equals(current.getMetadata().getUid())) {
            throw StatusError.conflict(
                    type.plural(),
                    current.getMetadata().getName(),
                    "Precondition failed: UID in precondition: " + uid + ", UID in object meta: "
                            + current.getMetadata().getUid());
        }
    }

    static String subject(ResourceType type, HasMetadata object) {
        return Subjects.of(
                type.namespaced() ? object.getMetadata().getNamespace() : "",
                type.plural(),
                object.getMetadata().getName());
    }

    @SuppressWarnings("unchecked")
    static <T extends HasMetadata> T copy(T object) {
        return (T) Json.convert(Json.tree(object), object.getClass());
    }
}
