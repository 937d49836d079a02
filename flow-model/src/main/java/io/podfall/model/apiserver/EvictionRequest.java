package io.podfall.model.apiserver;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code POST /api/v1/namespaces/{namespace}/pods/{name}/eviction}: the Eviction as the client sent it (policy/v1 or
 * policy/v1beta1, {@code metadata.name} and optional {@code deleteOptions}), read by the API server when it takes the
 * request from the log.
 */
public record EvictionRequest(String namespace, String name, JsonNode eviction) {}
