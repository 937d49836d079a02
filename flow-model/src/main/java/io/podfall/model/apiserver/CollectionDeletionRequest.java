package io.podfall.model.apiserver;

import io.fabric8.kubernetes.api.model.DeleteOptions;

/**
 * {@code DELETE /api/v1/namespaces/{namespace}/{resource}?labelSelector=...&fieldSelector=...} (the
 * {@code deletecollection} verb): every object of the resource in the namespace that both selectors match is deleted
 * with the same DeleteOptions, as if by one single delete each. {@code namespace} is "" for a cluster-scoped resource;
 * a null or empty selector matches everything.
 */
public record CollectionDeletionRequest(
        String resource, String namespace, String labelSelector, String fieldSelector, DeleteOptions options) {}
