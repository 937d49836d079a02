package io.podfall.apiserver.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.podfall.apiserver.registry.StatusError;
import io.podfall.apiserver.rest.ApiPaths.Document;
import io.podfall.apiserver.rest.ApiPaths.Resource;
import io.podfall.model.k8s.ResourceType;
import org.junit.jupiter.api.Test;

class ApiPathsTest {

    @Test
    void namespacedPathsNameTypeNamespaceObjectAndSubresource() {
        assertEquals(
                new Resource(ResourceType.PODS, "default", null, null),
                ApiPaths.parse("/api/v1/namespaces/default/pods"));
        assertEquals(
                new Resource(ResourceType.PODS, "default", "web-1", null),
                ApiPaths.parse("api/v1/namespaces/default/pods/web-1"));
        assertEquals(
                new Resource(ResourceType.PODS, "default", "web-1", "status"),
                ApiPaths.parse("/api/v1/namespaces/default/pods/web-1/status"));
        assertEquals(
                new Resource(ResourceType.DEPLOYMENTS, "default", "web", "scale"),
                ApiPaths.parse("/apis/apps/v1/namespaces/default/deployments/web/scale"));
        assertEquals(
                new Resource(ResourceType.EVENTS, "kube-system", null, null),
                ApiPaths.parse("/api/v1/namespaces/kube-system/events"));
        assertEquals(
                new Resource(ResourceType.LEASES, "kube-node-lease", "node-1", null),
                ApiPaths.parse("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1"));
    }

    @Test
    void aNamespacedTypeWithoutNamespaceIsTheListAcrossAllNamespaces() {
        Resource all = (Resource) ApiPaths.parse("/apis/apps/v1/replicasets");
        assertEquals(ResourceType.REPLICASETS, all.type());
        assertEquals(null, all.namespace());
        assertEquals(true, all.collection());
        assertThrows(
                StatusError.class,
                () -> ApiPaths.parse("/api/v1/pods/web-1"),
                "a pod is only reached through its namespace");
    }

    @Test
    void clusterScopedPathsHaveTheEmptyNamespace() {
        assertEquals(
                new Resource(ResourceType.NODES, "", "node-1", "status"),
                ApiPaths.parse("/api/v1/nodes/node-1/status"));
        assertEquals(new Resource(ResourceType.NAMESPACES, "", null, null), ApiPaths.parse("/api/v1/namespaces"));
        assertEquals(
                new Resource(ResourceType.NAMESPACES, "", "team-a", null), ApiPaths.parse("/api/v1/namespaces/team-a"));
        assertEquals(
                new Resource(ResourceType.NAMESPACES, "", "team-a", "status"),
                ApiPaths.parse("/api/v1/namespaces/team-a/status"),
                "a namespace's status, not a resource called status");
    }

    @Test
    void discoveryPathsAreDocuments() {
        assertEquals(
                "APIVersions",
                ((Document) ApiPaths.parse("/api")).body().path("kind").asText());
        assertEquals(
                "APIGroupList",
                ((Document) ApiPaths.parse("/apis")).body().path("kind").asText());
        assertEquals(
                "APIGroup",
                ((Document) ApiPaths.parse("/apis/apps")).body().path("kind").asText());
        assertEquals(
                "v1",
                ((Document) ApiPaths.parse("/api/v1"))
                        .body()
                        .path("groupVersion")
                        .asText());
        assertEquals(
                "apps/v1",
                ((Document) ApiPaths.parse("/apis/apps/v1/"))
                        .body()
                        .path("groupVersion")
                        .asText());
        assertEquals(
                "coordination.k8s.io/v1",
                ((Document) ApiPaths.parse("/apis/coordination.k8s.io/v1"))
                        .body()
                        .path("groupVersion")
                        .asText());
    }

    /** pods/.. would be the namespace once normalized: a name that is a dot segment is refused, escaped or not. */
    @Test
    void aDotSegmentIsABadRequestBeforeThePathIsNormalized() {
        for (String path : new String[] {
            "/api/v1/namespaces/team-a/pods/..",
            "/api/v1/namespaces/team-a/pods/.",
            "/api/v1/namespaces/x/pods/%2e%2E",
            "/api/v1/namespaces/../pods"
        }) {
            StatusError e = assertThrows(StatusError.class, () -> ApiPaths.requireLiteralSegments(path), path);
            assertEquals(400, e.status().getCode(), path);
        }
        ApiPaths.requireLiteralSegments("/api/v1/namespaces/x/pods/a..b");
        ApiPaths.requireLiteralSegments("/api/v1/namespaces/x/pods/.a");
    }

    /** "web-1;x=y" is a name no object has, not web-1 with a matrix parameter. */
    @Test
    void aSegmentWithASemicolonNamesNothing() {
        for (String path :
                new String[] {"/api/v1/namespaces/x/pods/web-1;x=y", "/api/v1/namespaces/x/pods;v=1", "/api/v1;a/pods"
                }) {
            assertEquals(
                    404,
                    assertThrows(StatusError.class, () -> ApiPaths.requireLiteralSegments(path), path)
                            .status()
                            .getCode(),
                    path);
        }
    }

    @Test
    void whatIsNotServedIsA404() {
        for (String path : new String[] {
            "/api/v2",
            "/apis/batch/v1/jobs",
            "/apis/apps/v1beta1/deployments",
            "/apis/apps/v1/namespaces/default/pods",
            "/api/v1/namespaces/default/deployments",
            "/api/v1/namespaces/default/events/e1/status",
            "/api/v1/namespaces/default/pods/web-1/scale",
            "/api/v1/namespaces/default/pods/web-1/status/extra",
            "/api/v1/widgets",
            "/api/v1/namespaces/default/namespaces",
            "/api/v1/namespaces/kube-node-lease/leases",
            "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1/status"
        }) {
            StatusError e = assertThrows(StatusError.class, () -> ApiPaths.parse(path), path);
            assertEquals(404, e.status().getCode(), path);
        }
        assertInstanceOf(Resource.class, ApiPaths.parse("/apis/apps/v1/namespaces/default/deployments/web/status"));
    }
}
