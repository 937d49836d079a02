package io.podfall.controller.scheduler;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.podfall.model.Json;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The scheduler's NodeAffinity filter ({@code pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go}, matching
 * as {@code staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go}): a node fits if its
 * labels hold every pair of the pod's {@code spec.nodeSelector} and, if the pod has
 * {@code affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution}, it matches one of its terms (terms are
 * ORed; within a term every matchExpression on the labels and every matchField on the node are ANDed; a term with
 * neither matches no node).
 *
 * @param nodeSelector {@code spec.nodeSelector}, empty for none
 * @param requiredTerms the required node selector terms; null for a pod without required node affinity (an empty list
 *     is a selector that matches nothing)
 */
record NodeAffinity(Map<String, String> nodeSelector, List<NodeSelectorTerm> requiredTerms) {
    static final NodeAffinity NONE = new NodeAffinity(Map.of(), null);
    /** ErrReasonPod. */
    static final String REASON = "node(s) didn't match Pod's node affinity/selector";
    /**
     * What a node left out by the PreFilter's node names is told (findNodesThatFitPod, {@code schedule_one.go}):
     * "didn't satisfy plugin(s)" and the plugins that narrowed the nodes.
     */
    static final String REASON_PRE_FILTERED = "node(s) didn't satisfy plugin(s) [NodeAffinity]";
    /** errReasonConflict: the PreFilter's node names, intersected, leave none. */
    static final String REASON_CONFLICT = "pod affinity terms conflict";

    private static final String OBJECT_NAME_FIELD = "metadata.name";
    private static final TypeReference<List<NodeSelectorTerm>> TERMS = new TypeReference<>() {};

    /** Reads the pod's node selector and required node affinity off its spec. */
    static NodeAffinity of(JsonNode spec) {
        JsonNode selector = spec.path("nodeSelector");
        JsonNode terms = spec.path("affinity")
                .path("nodeAffinity")
                .path("requiredDuringSchedulingIgnoredDuringExecution")
                .path("nodeSelectorTerms");
        if (selector.isEmpty() && terms.isMissingNode()) {
            return NONE;
        }
        Map<String, String> labels = new TreeMap<>();
        selector.fields()
                .forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        return new NodeAffinity(
                Map.copyOf(labels),
                terms.isMissingNode() || terms.isNull() ? null : List.copyOf(Json.MAPPER.convertValue(terms, TERMS)));
    }

    /** Filter: whether the node's name and labels satisfy the selector and one of the required terms. */
    boolean matches(String nodeName, Map<String, String> labels) {
        if (!nodeSelector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        return requiredTerms == null || requiredTerms.stream().anyMatch(t -> matches(t, nodeName, labels));
    }

    /**
     * PreFilter (getPreFilterNodeNames): when every required term names nodes by {@code metadata.name In}, only those
     * nodes are considered (the union over terms of the intersection within each); empty for a pod whose terms do not
     * all do so.
     */
    Optional<Set<String>> preFilterNodeNames() {
        if (requiredTerms == null) {
            return Optional.empty();
        }
        Set<String> names = new HashSet<>();
        for (NodeSelectorTerm term : requiredTerms) {
            Set<String> termNames = null;
            for (NodeSelectorRequirement r : term.getMatchFields()) {
                if (OBJECT_NAME_FIELD.equals(r.getKey()) && "In".equals(r.getOperator())) {
                    if (termNames == null) {
                        termNames = new HashSet<>(r.getValues());
                    } else {
                        termNames.retainAll(r.getValues());
                    }
                }
            }
            if (termNames == null) {
                return Optional.empty();
            }
            names.addAll(termNames);
        }
        return Optional.of(names);
    }

    private static boolean matches(NodeSelectorTerm term, String nodeName, Map<String, String> labels) {
        if (term.getMatchExpressions().isEmpty() && term.getMatchFields().isEmpty()) {
            return false;
        }
        return term.getMatchExpressions().stream().allMatch(r -> matches(r, labels.get(r.getKey())))
                && term.getMatchFields().stream()
                        .allMatch(r -> OBJECT_NAME_FIELD.equals(r.getKey()) && matches(r, nodeName));
    }

    /**
     * One requirement against a value (null: the label is absent), as labels.Requirement.Matches: In and NotIn on the
     * set of values (NotIn and DoesNotExist hold for an absent label), Gt and Lt compare the label as an integer with
     * the one value.
     */
    private static boolean matches(NodeSelectorRequirement r, String value) {
        List<String> values = r.getValues();
        return switch (r.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            case "Gt", "Lt" -> value != null && values.size() == 1 && compares(r.getOperator(), value, values.get(0));
            default -> false;
        };
    }

    private static boolean compares(String operator, String label, String bound) {
        try {
            long l = Long.parseLong(label);
            long b = Long.parseLong(bound);
            return "Gt".equals(operator) ? l > b : l < b;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
