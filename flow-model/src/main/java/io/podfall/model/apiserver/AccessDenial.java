package io.podfall.model.apiserver;

import io.fabric8.kubernetes.api.model.Status;
import java.util.List;

/**
 * A mutating request the API server refused before it reached the log as a request: its caller was not authenticated
 * (401) or not authorised (403). Recorded so that an incident's log also shows who tried to change what, as
 * kube-apiserver's audit log would.
 *
 * @param user the authenticated user, or null when authentication failed
 * @param groups the user's groups
 * @param verb the request's verb as the authorizer sees it: create, update, patch, delete, deletecollection
 * @param resource the resource's plural, null for a path that names none
 * @param subresource e.g. {@code eviction}, or null
 * @param namespace the namespace, "" for cluster-scoped, null for all namespaces
 * @param name the object's name, null for a collection
 * @param path the request path
 * @param status the Status the client got
 */
public record AccessDenial(
        String user,
        List<String> groups,
        String verb,
        String resource,
        String subresource,
        String namespace,
        String name,
        String path,
        Status status) {}
