package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code fieldSelector} and {@code labelSelector} of a LIST, a watch or a collection delete, equality-based:
 * {@code k=v}, {@code k==v}, {@code k!=v}, comma-separated (all must hold); label selectors also take {@code k}
 * (exists) and {@code !k}. Field selectors support the fields upstream converts for the kind (a subset); any other is
 * refused as upstream refuses it, with {@code field label not supported}. kubectl's delete wait lists with
 * {@code fieldSelector=metadata.name=<name>} and treats any count other than one as "deleted", so ignoring an unknown
 * selector would be a false success.
 */
public record Selectors(List<Requirement> fields, List<Requirement> labels) {
    /**
     * The fields each kind can be selected by: {@code metadata.name} (and {@code metadata.namespace} if namespaced) for
     * every kind ({@code DefaultClusterScopedAttr}, {@code DefaultNamespaceScopedAttr}), and the kind's own
     * ({@code pkg/registry/core/pod/strategy.go} ToSelectableFields, {@code .../event/strategy.go}, ...).
     */
    private static final Map<ResourceType, List<String>> FIELDS = Map.of(
            ResourceType.PODS, List.of("metadata.name", "metadata.namespace", "spec.nodeName", "status.phase"),
            ResourceType.NODES, List.of("metadata.name", "spec.unschedulable"),
            ResourceType.NAMESPACES, List.of("metadata.name", "status.phase"),
            ResourceType.SERVICES, List.of("metadata.name", "metadata.namespace", "spec.clusterIP", "spec.type"),
            ResourceType.ENDPOINTS, List.of("metadata.name", "metadata.namespace"),
            // kubectl describe selects a pod's events by involvedObject.
            ResourceType.EVENTS,
                    List.of(
                            "metadata.name",
                            "metadata.namespace",
                            "involvedObject.kind",
                            "involvedObject.namespace",
                            "involvedObject.name",
                            "involvedObject.uid",
                            "involvedObject.apiVersion",
                            "involvedObject.resourceVersion",
                            "involvedObject.fieldPath",
                            "reason",
                            "reportingComponent",
                            "type"),
            ResourceType.DEPLOYMENTS, List.of("metadata.name", "metadata.namespace"),
            ResourceType.REPLICASETS, List.of("metadata.name", "metadata.namespace", "status.replicas"),
            ResourceType.LEASES, List.of("metadata.name", "metadata.namespace"),
            ResourceType.PODDISRUPTIONBUDGETS, List.of("metadata.name", "metadata.namespace"));

    enum Op {
        EQUALS,
        NOT_EQUALS,
        EXISTS,
        NOT_EXISTS
    }

    record Requirement(String key, Op op, String value) {
        boolean matches(String actual) {
            return switch (op) {
                case EQUALS -> value.equals(actual == null ? "" : actual);
                case NOT_EQUALS -> !value.equals(actual == null ? "" : actual);
                case EXISTS -> actual != null;
                case NOT_EXISTS -> actual == null;
            };
        }
    }

    /** @throws StatusError 400 BadRequest for a selector that cannot be parsed or names an unsupported field */
    public static Selectors parse(ResourceType type, String fieldSelector, String labelSelector) {
        List<Requirement> fields = requirements(fieldSelector, false);
        for (Requirement r : fields) {
            if (!FIELDS.get(type).contains(r.key())) {
                throw StatusError.badRequest("field label not supported: " + r.key());
            }
        }
        return new Selectors(fields, requirements(labelSelector, true));
    }

    /** Whether there is no requirement: every object matches. */
    public boolean selectsAll() {
        return fields.isEmpty() && labels.isEmpty();
    }

    /** Whether an object (as JSON) satisfies every requirement. */
    public boolean matches(JsonNode object) {
        for (Requirement r : fields) {
            JsonNode v = object.at("/" + r.key().replace('.', '/'));
            if (!r.matches(v.isMissingNode() || v.isNull() ? "" : v.asText())) {
                return false;
            }
        }
        JsonNode labels = object.path("metadata").path("labels");
        for (Requirement r : labels()) {
            JsonNode v = labels.get(r.key());
            if (!r.matches(v == null || v.isNull() ? null : v.asText())) {
                return false;
            }
        }
        return true;
    }

    private static List<Requirement> requirements(String selector, boolean labels) {
        List<Requirement> out = new ArrayList<>();
        if (selector == null || selector.isBlank()) {
            return out;
        }
        // -1 keeps empty terms ("a=b,", ","): labels.Parse refuses them; dropped, "," would select everything.
        for (String term : selector.split(",", -1)) {
            String t = term.trim();
            Requirement r;
            int ne = t.indexOf("!=");
            int eq = t.indexOf('=');
            if (ne > 0) {
                r = new Requirement(
                        t.substring(0, ne).trim(),
                        Op.NOT_EQUALS,
                        t.substring(ne + 2).trim());
            } else if (eq > 0) {
                int valueAt = t.startsWith("==", eq) ? eq + 2 : eq + 1;
                r = new Requirement(
                        t.substring(0, eq).trim(),
                        Op.EQUALS,
                        t.substring(valueAt).trim());
            } else if (labels && t.startsWith("!") && isKey(t.substring(1))) {
                r = new Requirement(t.substring(1), Op.NOT_EXISTS, null);
            } else if (labels && isKey(t)) {
                r = new Requirement(t, Op.EXISTS, null);
            } else {
                throw StatusError.badRequest(
                        labels
                                ? "unable to parse requirement: found '" + t
                                        + "', expected: identifier or '!', '=', '==', '!='"
                                : "invalid field selector: '" + t + "': expected key=value, key==value or key!=value");
            }
            if (!isKey(r.key()) || (r.value() != null && r.value().matches(".*[\\s=!()].*"))) {
                throw StatusError.badRequest(
                        (labels ? "unable to parse requirement: " : "invalid field selector: ") + "'" + t + "'");
            }
            out.add(r);
        }
        return out;
    }

    private static boolean isKey(String s) {
        return s.matches("[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?");
    }
}
