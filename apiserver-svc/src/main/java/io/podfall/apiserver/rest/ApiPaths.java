package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.apiserver.registry.Kinds;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.k8s.ResourceType;
import java.util.Arrays;

/**
 * Where a path under {@code /api} or {@code /apis} leads, as the API server's request info resolver reads it
 * ({@code staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go}): a discovery document, or a resource of a
 * group and version, a namespace when it is namespaced, an object's name and a subresource.
 *
 * <pre>
 *   /api | /apis | /apis/apps                          discovery
 *   /api/v1 | /apis/apps/v1                            the group version's resources
 *   &lt;gv&gt;/&lt;resource&gt;[/&lt;name&gt;[/&lt;subresource&gt;]]              cluster-scoped (or, without a name, all namespaces)
 *   &lt;gv&gt;/namespaces/&lt;ns&gt;/&lt;resource&gt;[/&lt;name&gt;[/&lt;sub&gt;]]    namespaced
 * </pre>
 *
 * {@code /api/v1/namespaces/<name>/status} is the namespace's status, not a resource called "status". Anything else is
 * a path not served (404). Pure.
 */
final class ApiPaths {
    private static final String CORE_VERSION = "v1";

    private ApiPaths() {}

    sealed interface Target permits Document, Resource {}

    /** A discovery document. */
    record Document(ObjectNode body) implements Target {}

    /**
     * A resource path: {@code namespace} "" for a cluster-scoped type, null for a list across all namespaces;
     * {@code name} null for the collection; {@code subresource} null for the object itself.
     */
    record Resource(ResourceType type, String namespace, String name, String subresource) implements Target {
        boolean collection() {
            return name == null;
        }
    }

    /** @throws StatusError 404 for a path this server does not serve */
    static Target parse(String path) {
        String[] s = Arrays.stream(path.split("/")).filter(p -> !p.isEmpty()).toArray(String[]::new);
        if (s.length == 0) {
            throw StatusError.pathNotFound();
        }
        String group;
        int rest;
        if (s[0].equals("api")) {
            if (s.length == 1) {
                return new Document(Discovery.apiVersions());
            }
            if (!s[1].equals(CORE_VERSION)) {
                throw StatusError.pathNotFound();
            }
            group = "";
            rest = 2;
        } else if (s[0].equals("apis")) {
            if (s.length == 1) {
                return new Document(Discovery.apiGroupList());
            }
            if (!Discovery.GROUPS.contains(s[1])) {
                throw StatusError.pathNotFound();
            }
            if (s.length == 2) {
                return new Document(Discovery.apiGroup(s[1]));
            }
            if (!s[2].equals(CORE_VERSION)) {
                throw StatusError.pathNotFound();
            }
            group = s[1];
            rest = 3;
        } else {
            throw StatusError.pathNotFound();
        }
        if (s.length == rest) {
            return new Document(Discovery.resources(group));
        }
        return resource(group, Arrays.copyOfRange(s, rest, s.length));
    }

    private static Resource resource(String group, String[] r) {
        boolean namespaceSubresource = group.isEmpty()
                && r.length == 3
                && r[0].equals(ResourceType.NAMESPACES.plural())
                && Kinds.subresources(ResourceType.NAMESPACES).contains(r[2]);
        Resource resource;
        if (r[0].equals(ResourceType.NAMESPACES.plural()) && r.length >= 3 && !namespaceSubresource) {
            ResourceType type = type(group, r[2]);
            if (!type.namespaced() || r.length > 5) {
                throw StatusError.pathNotFound();
            }
            resource = new Resource(type, r[1], at(r, 3), at(r, 4));
        } else {
            ResourceType type = type(group, r[0]);
            if (r.length > 3 || (type.namespaced() && r.length > 1)) {
                throw StatusError.pathNotFound();
            }
            resource = new Resource(type, type.namespaced() ? null : "", at(r, 1), at(r, 2));
        }
        if (resource.subresource() != null
                && !Kinds.subresources(resource.type()).contains(resource.subresource())) {
            throw StatusError.pathNotFound();
        }
        return resource;
    }

    private static ResourceType type(String group, String plural) {
        return Arrays.stream(ResourceType.values())
                .filter(t -> t.group().equals(group) && t.plural().equals(plural))
                .findFirst()
                .orElseThrow(StatusError::pathNotFound);
    }

    /**
     * The path as sent names what it says, before the framework rewrites it. A name that is a dot segment would address
     * another resource once the path is normalized ({@code pods/..} is the namespace): upstream refuses it as a key of
     * the store, before any lookup ({@code staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go}
     * NamespaceKeyFunc, with {@code IsValidPathSegmentName} of
     * {@code staging/src/k8s.io/apimachinery/pkg/api/validation/path/name.go}). A segment with a ';' is a name upstream
     * looks up as it is, which no object has (names are DNS subdomains); JAX-RS would drop ";x=y" as matrix parameters
     * and act on the object before it.
     *
     * @param rawPath the request's path as sent, not decoded
     * @throws StatusError 400 for a segment that decodes to "." or "..", 404 for one with a ';'
     */
    static void requireLiteralSegments(String rawPath) {
        if (rawPath == null) {
            return;
        }
        for (String segment : rawPath.split("/")) {
            String decoded = segment.replace("%2e", ".").replace("%2E", ".");
            if (decoded.equals(".") || decoded.equals("..")) {
                throw StatusError.badRequest(
                        "Name parameter invalid: \"" + decoded + "\": may not be '" + decoded + "'");
            }
            if (segment.contains(";")) {
                throw StatusError.pathNotFound();
            }
        }
    }

    private static String at(String[] segments, int i) {
        return i < segments.length ? segments[i] : null;
    }
}
