package io.podfall.model.apiserver;

import com.fasterxml.jackson.databind.JsonNode;

/** {@code POST /api/v1/namespaces/{namespace}/{resource}}: the object as the client sent it. */
public record CreationRequest(String resource, String namespace, JsonNode object) {}
