package io.podfall.model.apiserver;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code PUT /api/v1/namespaces/{namespace}/{resource}/{name}[/{subresource}]}: the whole object as the client sent it;
 * {@code subresource} is {@code "status"} for a status write, else null.
 */
public record UpdateRequest(String resource, String namespace, String name, String subresource, JsonNode object) {}
