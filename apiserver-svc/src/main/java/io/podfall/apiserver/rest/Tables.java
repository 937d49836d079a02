package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The server-side printing {@code kubectl get} asks for with {@code Accept:
 * application/json;as=Table;v=v1;g=meta.k8s.io}: the format negotiation and the assembly of a {@code meta.k8s.io} Table
 * (column definitions, one row per object, the object or its metadata per row, the one-row Table of a watch event), as
 * {@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters} and
 * {@code pkg/printers/tablegenerator.go} do upstream. The columns are {@link TableColumns}', the cells
 * {@link Printers}'. kubectl prints the cells verbatim and shows priority-1 columns only with {@code -o wide}. Pure:
 * the current (simulated) time is an input, for the Age column.
 */
final class Tables {
    static final String GROUP = "meta.k8s.io";

    /** What each row carries besides its cells ({@code includeObject}): nothing, the metadata, or the whole object. */
    enum IncludeObject {
        NONE,
        METADATA,
        OBJECT;

        /** @throws StatusError 400 for a value upstream does not know */
        static IncludeObject parse(String value) {
            return switch (value == null || value.isEmpty() ? "Metadata" : value) {
                case "None" -> NONE;
                case "Metadata" -> METADATA;
                case "Object" -> OBJECT;
                default ->
                    throw StatusError.badRequest("includeObject: Unsupported value: \"" + value
                            + "\": supported values: \"Metadata\", \"None\", \"Object\"");
            };
        }
    }

    /** How to print: the Table version asked for, and what each row carries. */
    record Format(String version, IncludeObject include) {
        String apiVersion() {
            return GROUP + "/" + version;
        }
    }

    private Tables() {}

    /**
     * The Table version an Accept header asks for, if any: the first media range {@code application/json} with
     * {@code as=Table}, {@code g=meta.k8s.io} and a version this server speaks (v1, v1beta1). kubectl lists its
     * preferences in order and ends with plain {@code application/json}, which gets the plain object.
     */
    static Optional<String> requestedVersion(String accept) {
        if (accept == null) {
            return Optional.empty();
        }
        for (String range : accept.split(",")) {
            String[] parts = range.split(";");
            if (!parts[0].trim().equalsIgnoreCase("application/json")
                    && !parts[0].trim().equals("*/*")) {
                continue;
            }
            String as = null;
            String v = null;
            String g = null;
            for (int i = 1; i < parts.length; i++) {
                String[] kv = parts[i].trim().split("=", 2);
                String value = kv.length == 2 ? kv[1].trim() : "";
                switch (kv[0].trim()) {
                    case "as" -> as = value;
                    case "v" -> v = value;
                    case "g" -> g = value;
                    default -> {}
                }
            }
            if ("Table".equals(as) && GROUP.equals(g) && ("v1".equals(v) || "v1beta1".equals(v))) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }

    /** A Table of {@code objects}, in their order, with the column definitions (a list, or one object). */
    static ObjectNode table(
            ResourceType type, List<JsonNode> objects, String resourceVersion, Instant now, Format format) {
        ObjectNode table = Json.MAPPER.createObjectNode().put("kind", "Table").put("apiVersion", format.apiVersion());
        table.putObject("metadata").put("resourceVersion", resourceVersion);
        ArrayNode columns = table.putArray("columnDefinitions");
        for (TableColumns.Column c : TableColumns.of(type)) {
            columns.addObject()
                    .put("name", c.name())
                    .put("type", c.type())
                    .put("format", c.format())
                    .put("description", c.description())
                    .put("priority", c.priority());
        }
        ArrayNode rows = table.putArray("rows");
        objects.forEach(o -> rows.add(row(type, o, now, format)));
        return table;
    }

    /**
     * The object of one watch event: a one-row Table. Only the first event of a stream carries the column definitions;
     * kubectl keeps the header it printed (an empty list of definitions is not a new header).
     */
    static ObjectNode watchTable(ResourceType type, JsonNode object, Instant now, Format format, boolean withColumns) {
        ObjectNode table = table(
                type,
                List.of(object),
                object.path("metadata").path("resourceVersion").asText(""),
                now,
                format);
        if (!withColumns) {
            table.putArray("columnDefinitions");
        }
        return table;
    }

    static ObjectNode row(ResourceType type, JsonNode object, Instant now, Format format) {
        ObjectNode row = Json.MAPPER.createObjectNode();
        ArrayNode cells = row.putArray("cells");
        Printers.cells(type, object, now).forEach(c -> {
            if (c instanceof Integer i) {
                cells.add(i);
            } else {
                cells.add((String) c);
            }
        });
        switch (format.include()) {
            case METADATA ->
                row.putObject("object")
                        .put("kind", "PartialObjectMetadata")
                        .put("apiVersion", format.apiVersion())
                        .set("metadata", object.path("metadata").deepCopy());
            case OBJECT -> row.set("object", object.deepCopy());
            case NONE -> {}
        }
        return row;
    }
}
