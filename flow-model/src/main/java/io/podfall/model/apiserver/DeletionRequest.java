package io.podfall.model.apiserver;

import io.fabric8.kubernetes.api.model.DeleteOptions;

/** {@code DELETE .../{resource}/{name}} with its DeleteOptions (from the body or the query). */
public record DeletionRequest(String resource, String namespace, String name, DeleteOptions options) {}
