package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.apiserver.registry.Kinds;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.util.List;

/**
 * The discovery documents kubectl and client libraries read before anything else (see docs/kubernetes-api-clients.md
 * §2): the core group, apps, coordination.k8s.io and policy, each resource with its subresources (an autoscaling/v1
 * Scale for {@code /scale}). {@code singularName} is sent as "" because the Python client rejects a null one;
 * {@code shortNames} make {@code po}/{@code deploy}/{@code rs} work and {@code categories} make {@code kubectl get all}
 * work.
 */
final class Discovery {
    static final String GIT_VERSION = "v1.32.0";
    /** The named groups served, all in version v1. */
    static final List<String> GROUPS = List.of("apps", "coordination.k8s.io", "policy");

    private static final String VERSION = "v1";
    private static final String DELETECOLLECTION = "deletecollection";
    private static final List<String> VERBS =
            List.of("create", "delete", DELETECOLLECTION, "get", "list", "patch", "update", "watch");

    private Discovery() {}

    static ObjectNode apiVersions() {
        ObjectNode doc = Json.MAPPER.createObjectNode().put("kind", "APIVersions");
        doc.putArray("versions").add(VERSION);
        doc.putArray("serverAddressByClientCIDRs");
        return doc;
    }

    static ObjectNode apiGroupList() {
        ObjectNode doc =
                Json.MAPPER.createObjectNode().put("kind", "APIGroupList").put("apiVersion", "v1");
        ArrayNode groups = doc.putArray("groups");
        GROUPS.forEach(g -> groups.add(group(g)));
        return doc;
    }

    /** {@code /apis/<group>}: one group with its versions and the preferred one. */
    static ObjectNode apiGroup(String name) {
        return group(name).put("kind", "APIGroup").put("apiVersion", "v1");
    }

    private static ObjectNode group(String name) {
        ObjectNode group = Json.MAPPER.createObjectNode().put("name", name);
        ObjectNode version = Json.MAPPER
                .createObjectNode()
                .put("groupVersion", name + "/" + VERSION)
                .put("version", VERSION);
        group.putArray("versions").add(version);
        group.set("preferredVersion", version.deepCopy());
        return group;
    }

    /** The APIResourceList of a group's version ("" is the core group, {@code /api/v1}). */
    static ObjectNode resources(String group) {
        ObjectNode doc = Json.MAPPER
                .createObjectNode()
                .put("kind", "APIResourceList")
                .put("apiVersion", "v1")
                .put("groupVersion", group.isEmpty() ? VERSION : group + "/" + VERSION);
        ArrayNode resources = doc.putArray("resources");
        for (ResourceType type : ResourceType.values()) {
            if (!type.group().equals(group)) {
                continue;
            }
            ObjectNode r = resource(resources, type.plural(), type, type.kind());
            (Kinds.collectionDeletable(type)
                            ? VERBS
                            : VERBS.stream()
                                    .filter(v -> !v.equals(DELETECOLLECTION))
                                    .toList())
                    .forEach(r.putArray("verbs")::add);
            type.shortNames().forEach(r.putArray("shortNames")::add);
            List<String> categories = Kinds.categories(type);
            if (!categories.isEmpty()) {
                categories.forEach(r.putArray("categories")::add);
            }
            for (String subresource : Kinds.subresources(type)) {
                subresource(resources, type, subresource);
            }
        }
        return doc;
    }

    /**
     * A subresource whose kind is another group's names that kind: an autoscaling/v1 Scale for {@code /scale}, a
     * policy/v1 Eviction for {@code /eviction} (what {@code kubectl drain} looks for to evict rather than delete).
     */
    private static void subresource(ArrayNode resources, ResourceType type, String subresource) {
        String[] groupKind = switch (subresource) {
            case Kinds.SCALE -> new String[] {"autoscaling", "Scale"};
            case Kinds.EVICTION -> new String[] {"policy", "Eviction"};
            default -> new String[] {null, type.kind()};
        };
        ObjectNode sub = resource(resources, type.plural() + "/" + subresource, type, groupKind[1]);
        if (groupKind[0] != null) {
            sub.put("group", groupKind[0]).put("version", VERSION);
        }
        Kinds.subresourceVerbs(subresource).forEach(sub.putArray("verbs")::add);
    }

    private static ObjectNode resource(ArrayNode resources, String name, ResourceType type, String kind) {
        return resources
                .addObject()
                .put("name", name)
                .put("singularName", "")
                .put("namespaced", type.namespaced())
                .put("kind", kind);
    }

    static ObjectNode version() {
        return Json.MAPPER
                .createObjectNode()
                .put("major", "1")
                .put("minor", "32")
                .put("gitVersion", GIT_VERSION)
                .put("gitCommit", "podfall")
                .put("gitTreeState", "clean")
                .put("buildDate", "2025-01-01T00:00:00Z")
                .put("goVersion", "go1.23.4")
                .put("compiler", "gc")
                .put("platform", "linux/amd64");
    }
}
