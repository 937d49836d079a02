package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;

import java.util.List;

/**
 * The discovery documents kubectl and client libraries read before anything else (see
 * docs/kubernetes-api-clients.md §2): the core group only. {@code singularName} is sent as "" because the Python
 * client rejects a null one; {@code shortNames} make {@code po}/{@code no} work.
 */
final class Discovery {
    static final String GIT_VERSION = "v1.32.0";
    private static final List<String> VERBS = List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

    private Discovery() {
    }

    static ObjectNode apiVersions() {
        ObjectNode doc = Json.MAPPER.createObjectNode().put("kind", "APIVersions");
        doc.putArray("versions").add("v1");
        doc.putArray("serverAddressByClientCIDRs");
        return doc;
    }

    static ObjectNode apiGroupList() {
        ObjectNode doc = Json.MAPPER.createObjectNode().put("kind", "APIGroupList").put("apiVersion", "v1");
        doc.putArray("groups");
        return doc;
    }

    static ObjectNode coreV1Resources() {
        ObjectNode doc = Json.MAPPER.createObjectNode().put("kind", "APIResourceList").put("apiVersion", "v1")
                .put("groupVersion", "v1");
        ArrayNode resources = doc.putArray("resources");
        for (ResourceType type : ResourceType.values()) {
            ObjectNode r = resources.addObject().put("name", type.plural()).put("singularName", "")
                    .put("namespaced", type.namespaced()).put("kind", type.kind());
            VERBS.forEach(r.putArray("verbs")::add);
            type.shortNames().forEach(r.putArray("shortNames")::add);
            // Only pods are in the "all" category upstream (kubectl get all); nodes are not.
            if (type == ResourceType.PODS) {
                r.putArray("categories").add("all");
            }
        }
        return doc;
    }

    static ObjectNode version() {
        return Json.MAPPER.createObjectNode().put("major", "1").put("minor", "32").put("gitVersion", GIT_VERSION)
                .put("gitCommit", "podfall").put("gitTreeState", "clean").put("buildDate", "2025-01-01T00:00:00Z")
                .put("goVersion", "go1.23.4").put("compiler", "gc").put("platform", "linux/amd64");
    }
}
