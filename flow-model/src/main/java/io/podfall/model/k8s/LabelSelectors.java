package io.podfall.model.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A {@code metav1.LabelSelector} as a selector string, as {@code LabelSelectorAsSelector(...).String()} prints it
 * ({@code staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go}, {@code labels/selector.go}): the requirements
 * sorted by key, set values sorted, joined by commas; an empty or missing selector is "". Its matching is shared by the
 * API server (a workload's validation, the Eviction API's budgets) and the disruption controller.
 */
public final class LabelSelectors {
    private LabelSelectors() {}

    public static String format(JsonNode selector) {
        List<Map.Entry<String, String>> requirements = new ArrayList<>();
        selector.path("matchLabels")
                .fields()
                .forEachRemaining(l -> requirements.add(
                        Map.entry(l.getKey(), l.getKey() + "=" + l.getValue().asText())));
        for (JsonNode e : selector.path("matchExpressions")) {
            String key = e.path("key").asText();
            TreeSet<String> values = new TreeSet<>();
            e.path("values").forEach(v -> values.add(v.asText()));
            String requirement = switch (e.path("operator").asText()) {
                case "In" -> key + " in (" + String.join(",", values) + ")";
                case "NotIn" -> key + " notin (" + String.join(",", values) + ")";
                case "DoesNotExist" -> "!" + key;
                default -> key;
            };
            requirements.add(Map.entry(key, requirement));
        }
        return requirements.stream()
                .sorted(Map.Entry.comparingByKey(Comparator.naturalOrder()))
                .map(Map.Entry::getValue)
                .reduce((a, b) -> a + "," + b)
                .orElse("");
    }

    /**
     * Whether {@code labels} satisfy {@code selector} ({@code LabelSelectorAsSelector(...).Matches}): every label of
     * {@code matchLabels} equal, every expression true. An empty selector matches everything.
     */
    public static boolean matches(JsonNode selector, JsonNode labels) {
        for (Iterator<Map.Entry<String, JsonNode>> it =
                        selector.path("matchLabels").fields();
                it.hasNext(); ) {
            Map.Entry<String, JsonNode> l = it.next();
            if (!l.getValue().asText().equals(labels.path(l.getKey()).asText(null))) {
                return false;
            }
        }
        for (JsonNode e : selector.path("matchExpressions")) {
            JsonNode value = labels.get(e.path("key").asText());
            boolean in = false;
            for (JsonNode v : e.path("values")) {
                in |= value != null && v.asText().equals(value.asText());
            }
            boolean holds = switch (e.path("operator").asText()) {
                case "In" -> in;
                case "NotIn" -> !in;
                case "Exists" -> value != null;
                case "DoesNotExist" -> value == null;
                default -> false;
            };
            if (!holds) {
                return false;
            }
        }
        return true;
    }
}
