package io.podfall.model.apiserver;

import io.fabric8.kubernetes.api.model.Status;

/** Why the API server refused a request: the Kubernetes Status the client receives. */
public record RequestRejection(Status status) {}
