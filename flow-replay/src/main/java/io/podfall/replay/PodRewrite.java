package io.podfall.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.podfall.model.Json;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A what-if on the recorded clients' inputs: the pods they create or change, directly or through a Deployment's or a
 * ReplicaSet's pod template, get a preStop sleep ({@code lifecycle.preStop: {sleep: {seconds: N}}} on every container
 * and sidecar, replacing any preStop) or a drain time (the {@code podfall.io/drain-seconds} annotation the runtime
 * reads: how long a process keeps accepting after its stop signal). A create or an update carries the whole object; a
 * patch carries what it changes, so only what it sets of a container or of the annotations is rewritten (a merge or
 * strategic merge patch's containers, a JSON patch's added or replaced values), and the rest stays as the rewritten
 * create stored it. Status writes change no spec and stay as recorded.
 *
 * @param preStopSleepSeconds the preStop sleep; null: left as recorded
 * @param drainSeconds the drain time; null: left as recorded
 */
public record PodRewrite(Long preStopSleepSeconds, Long drainSeconds) {
    public static final PodRewrite NONE = new PodRewrite(null, null);
    public static final String PRESTOP_SLEEP_SECONDS = "podfall.pods.prestop-sleep-seconds";
    public static final String DRAIN_SECONDS = "podfall.pods.drain-seconds";
    /** runtime-svc's ProcessBehaviour annotation: how long the process accepts after its stop signal. */
    public static final String DRAIN_ANNOTATION = "podfall.io/drain-seconds";

    private static final List<String> TYPES =
            List.of(EventTypes.CREATION_REQUESTED, EventTypes.UPDATE_REQUESTED, EventTypes.PATCH_REQUESTED);

    public boolean isEmpty() {
        return equals(NONE);
    }

    PodRewrite withPreStopSleep(long seconds) {
        return new PodRewrite(seconds, drainSeconds);
    }

    PodRewrite withDrain(long seconds) {
        return new PodRewrite(preStopSleepSeconds, seconds);
    }

    /** {@code podfall.pods.prestop-sleep-seconds=5, podfall.pods.drain-seconds=3}: what is set. */
    @Override
    public String toString() {
        List<String> set = new ArrayList<>();
        if (preStopSleepSeconds != null) {
            set.add(PRESTOP_SLEEP_SECONDS + "=" + preStopSleepSeconds);
        }
        if (drainSeconds != null) {
            set.add(DRAIN_SECONDS + "=" + drainSeconds);
        }
        return String.join(", ", set);
    }

    /** The request with its pods rewritten; the request itself when it creates or changes no pod's spec. */
    Event rewrite(Event request) {
        if (isEmpty() || TYPES.stream().noneMatch(request::is) || request.data().hasNonNull("subresource")) {
            return request;
        }
        JsonNode data = request.data().deepCopy();
        List<String> template = template(data.path("resource").asText());
        if (template == null) {
            return request;
        }
        if (request.is(EventTypes.PATCH_REQUESTED)) {
            patch(data, template);
        } else if (data.path("object").isObject()) {
            at(data.path("object"), template).ifPresent(this::template);
        }
        return data.equals(request.data())
                ? request
                : new Event(
                        request.id(),
                        request.source(),
                        request.type(),
                        request.subject(),
                        request.time(),
                        request.correlationId(),
                        request.causationId(),
                        request.traceparent(),
                        data);
    }

    /** Where a resource's pod template lies in its object: the pod itself, or {@code spec.template}; null: none. */
    private static List<String> template(String resource) {
        if (resource.equals(ResourceType.PODS.plural())) {
            return List.of();
        }
        return resource.equals(ResourceType.DEPLOYMENTS.plural()) || resource.equals(ResourceType.REPLICASETS.plural())
                ? List.of("spec", "template")
                : null;
    }

    private void patch(JsonNode data, List<String> template) {
        String type = data.path("patchType").asText();
        JsonNode patch = data.path("patch");
        if (type.equals(PatchRequest.JSON) && patch.isArray()) {
            patch.forEach(op -> operation((ObjectNode) op, template));
        } else if (patch.isObject()) {
            at(patch, template).ifPresent(this::template);
        }
    }

    /**
     * A JSON patch's add or replace: its value rewritten as what its path says it is (a template, a pod spec, its
     * containers or one of them, a lifecycle, a preStop, the metadata, the annotations or the drain annotation).
     */
    private void operation(ObjectNode op, List<String> template) {
        String kind = op.path("op").asText();
        if (!(kind.equals("add") || kind.equals("replace")) || !op.has("value")) {
            return;
        }
        List<String> path = pointer(op.path("path").asText());
        if (path.size() <= template.size()) {
            if (template.subList(0, path.size()).equals(path)) {
                at(op.get("value"), template.subList(path.size(), template.size()))
                        .ifPresent(this::template);
            }
            return;
        }
        if (!path.subList(0, template.size()).equals(template)) {
            return;
        }
        List<String> in = path.subList(template.size(), path.size());
        JsonNode value = op.get("value");
        switch (in.size()) {
            case 1 -> {
                if (in.get(0).equals("spec")) {
                    spec(value);
                } else if (in.get(0).equals("metadata")) {
                    metadata(value);
                }
            }
            case 2 -> {
                if (in.equals(List.of("spec", "containers"))) {
                    value.forEach(this::container);
                } else if (in.equals(List.of("metadata", "annotations")) && value.isObject()) {
                    annotate((ObjectNode) value);
                }
            }
            case 3 -> {
                if (in.subList(0, 2).equals(List.of("spec", "containers"))) {
                    container(value);
                } else if (in.equals(List.of("metadata", "annotations", DRAIN_ANNOTATION)) && drainSeconds != null) {
                    op.set("value", TextNode.valueOf(Long.toString(drainSeconds)));
                }
            }
            case 4 -> {
                if (in.subList(0, 2).equals(List.of("spec", "containers"))
                        && in.get(3).equals("lifecycle")
                        && value.isObject()
                        && preStopSleepSeconds != null) {
                    ((ObjectNode) value).set("preStop", sleep());
                }
            }
            case 5 -> {
                if (in.subList(0, 2).equals(List.of("spec", "containers"))
                        && in.subList(3, 5).equals(List.of("lifecycle", "preStop"))
                        && preStopSleepSeconds != null) {
                    op.set("value", sleep());
                }
            }
            default -> {}
        }
    }

    /** A JSON pointer's reference tokens, unescaped (RFC 6901). */
    private static List<String> pointer(String path) {
        if (path.isEmpty()) {
            return List.of();
        }
        return Arrays.stream(path.substring(1).split("/", -1))
                .map(t -> t.replace("~1", "/").replace("~0", "~"))
                .toList();
    }

    /** The object under {@code path} in {@code node}, if there is one. */
    private static Optional<JsonNode> at(JsonNode node, List<String> path) {
        JsonNode n = node;
        for (String field : path) {
            n = n.path(field);
        }
        return n.isObject() ? Optional.of(n) : Optional.empty();
    }

    /** A pod, or a pod template: its metadata and its spec, as far as they are given. */
    private void template(JsonNode pod) {
        metadata(pod.path("metadata"));
        spec(pod.path("spec"));
    }

    private void metadata(JsonNode metadata) {
        if (drainSeconds == null || !metadata.isObject()) {
            return;
        }
        JsonNode annotations = metadata.path("annotations");
        annotate(annotations.isObject() ? (ObjectNode) annotations : ((ObjectNode) metadata).putObject("annotations"));
    }

    private void annotate(ObjectNode annotations) {
        if (drainSeconds != null) {
            annotations.put(DRAIN_ANNOTATION, Long.toString(drainSeconds));
        }
    }

    /** A pod spec: every container, and every sidecar (an init container that restarts: it runs beside them). */
    private void spec(JsonNode spec) {
        spec.path("containers").forEach(this::container);
        spec.path("initContainers").forEach(c -> {
            if ("Always".equals(c.path("restartPolicy").asText())) {
                container(c);
            }
        });
    }

    /** One container: its preStop replaced by the sleep; a strategic merge patch's directive entry left alone. */
    private void container(JsonNode container) {
        if (preStopSleepSeconds == null || !container.isObject() || container.has("$patch")) {
            return;
        }
        JsonNode lifecycle = container.path("lifecycle");
        (lifecycle.isObject() ? (ObjectNode) lifecycle : ((ObjectNode) container).putObject("lifecycle"))
                .set("preStop", sleep());
    }

    /** {@code {sleep: {seconds: N}}}: the kubelet's built-in sleep handler (PodLifecycleSleepAction). */
    private JsonNode sleep() {
        return Json.MAPPER.valueToTree(Map.of("sleep", Map.of("seconds", preStopSleepSeconds)));
    }

    /** Every recorded client request rewritten; the count of those it changed, for the report. */
    record Rewritten(List<Input> inputs, long changed, long requests) {}

    Rewritten rewrite(List<Input> inputs) {
        List<Input> out = new ArrayList<>();
        long changed = 0;
        long requests = 0;
        for (Input i : inputs) {
            if (i instanceof Input.Request r) {
                requests++;
                Event e = rewrite(r.event());
                changed += e == r.event() ? 0 : 1;
                out.add(e == r.event() ? i : new Input.Request(e));
            } else {
                out.add(i);
            }
        }
        return new Rewritten(List.copyOf(out), changed, requests);
    }
}
