package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.k8s.LabelSelectors;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The cells of a server-side Table row, per kind, with the rules of the print functions in
 * {@code pkg/printers/internalversion/printers.go} ({@code printPod}, {@code printNode}, {@code printDeployment},
 * {@code printReplicaSet}, {@code printService}, {@code printEndpoints}, {@code printEvent}, {@code printNamespace},
 * {@code printLease}, {@code printPodDisruptionBudget}) and their helpers ({@code translateTimestampSince},
 * {@code duration.HumanDuration}). One cell for each of {@link TableColumns}' columns. Pure: the current (simulated)
 * time is an input, for the Age column.
 */
final class Printers {
    private static final String NONE = "<none>";

    private Printers() {}

    /** The cells of one row, every column's (the server prints wide; kubectl drops priority-1 columns itself). */
    static List<Object> cells(ResourceType type, JsonNode object, Instant now) {
        return switch (type) {
            case PODS -> podCells(object, now);
            case NODES -> nodeCells(object, now);
            case NAMESPACES ->
                List.of(name(object), object.path("status").path("phase").asText(""), age(object, now));
            case SERVICES -> serviceCells(object, now);
            case ENDPOINTS -> List.of(name(object), endpoints(object), age(object, now));
            case EVENTS -> eventCells(object, now);
            case DEPLOYMENTS -> deploymentCells(object, now);
            case REPLICASETS -> replicaSetCells(object, now);
            case LEASES ->
                List.of(name(object), object.path("spec").path("holderIdentity").asText(""), age(object, now));
            case PODDISRUPTIONBUDGETS -> podDisruptionBudgetCells(object, now);
        };
    }

    /** {@code printPodDisruptionBudget}: minAvailable and maxUnavailable as given, N/A when unset. */
    static List<Object> podDisruptionBudgetCells(JsonNode pdb, Instant now) {
        JsonNode spec = pdb.path("spec");
        return List.of(
                name(pdb),
                spec.hasNonNull("minAvailable") ? spec.get("minAvailable").asText() : "N/A",
                spec.hasNonNull("maxUnavailable") ? spec.get("maxUnavailable").asText() : "N/A",
                pdb.path("status").path("disruptionsAllowed").asInt(0),
                age(pdb, now));
    }

    /** {@code printDeployment}: Ready is ready/desired; then the template's containers and images, and the selector. */
    static List<Object> deploymentCells(JsonNode deployment, Instant now) {
        JsonNode spec = deployment.path("spec");
        JsonNode status = deployment.path("status");
        List<Object> cells = new ArrayList<>(List.of(
                name(deployment),
                status.path("readyReplicas").asInt(0) + "/"
                        + spec.path("replicas").asInt(0),
                status.path("updatedReplicas").asInt(0),
                status.path("availableReplicas").asInt(0),
                age(deployment, now)));
        cells.addAll(templateCells(spec));
        return cells;
    }

    /** {@code printReplicaSet}: desired, current (observed) and ready replicas. */
    static List<Object> replicaSetCells(JsonNode replicaSet, Instant now) {
        JsonNode spec = replicaSet.path("spec");
        JsonNode status = replicaSet.path("status");
        List<Object> cells = new ArrayList<>(List.of(
                name(replicaSet),
                spec.path("replicas").asInt(0),
                status.path("replicas").asInt(0),
                status.path("readyReplicas").asInt(0),
                age(replicaSet, now)));
        cells.addAll(templateCells(spec));
        return cells;
    }

    /** {@code layoutContainerCells} and the selector string of a workload. */
    private static List<Object> templateCells(JsonNode spec) {
        List<String> names = new ArrayList<>();
        List<String> images = new ArrayList<>();
        for (JsonNode c : spec.path("template").path("spec").path("containers")) {
            names.add(c.path("name").asText(""));
            images.add(c.path("image").asText(""));
        }
        return List.of(String.join(",", names), String.join(",", images), LabelSelectors.format(spec.path("selector")));
    }

    /** {@code printService}: the external IPs only for ClusterIP/NodePort (podfall runs no load balancer). */
    static List<Object> serviceCells(JsonNode service, Instant now) {
        JsonNode spec = service.path("spec");
        String type = spec.path("type").asText("");
        String externalIp = switch (type) {
            case "ClusterIP", "NodePort" -> spec.path("externalIPs").size() > 0 ? join(spec.path("externalIPs")) : NONE;
            case "LoadBalancer" -> spec.path("externalIPs").size() > 0 ? join(spec.path("externalIPs")) : "<pending>";
            case "ExternalName" -> spec.path("externalName").asText("");
            default -> "<unknown>";
        };
        List<String> ports = new ArrayList<>();
        for (JsonNode p : spec.path("ports")) {
            String nodePort =
                    p.path("nodePort").asInt(0) > 0 ? ":" + p.path("nodePort").asInt() : "";
            ports.add(
                    p.path("port").asInt() + nodePort + "/" + p.path("protocol").asText(""));
        }
        TreeSet<String> selector = new TreeSet<>();
        spec.path("selector")
                .fields()
                .forEachRemaining(
                        l -> selector.add(l.getKey() + "=" + l.getValue().asText()));
        return List.of(
                name(service),
                type,
                orNone(spec.path("clusterIP").asText("")),
                externalIp,
                ports.isEmpty() ? NONE : String.join(",", ports),
                age(service, now),
                selector.isEmpty() ? NONE : String.join(",", selector));
    }

    /**
     * {@code formatEndpoints}: {@code ip:port} for every address and port of every subset, the first three, then
     * {@code + N more...}; {@code <none>} without subsets.
     */
    static String endpoints(JsonNode endpoints) {
        JsonNode subsets = endpoints.path("subsets");
        if (subsets.size() == 0) {
            return NONE;
        }
        final int max = 3;
        List<String> list = new ArrayList<>();
        int count = 0;
        for (JsonNode subset : subsets) {
            JsonNode ports = subset.path("ports");
            for (int p = 0; p < Math.max(1, ports.size()); p++) {
                for (JsonNode address : subset.path("addresses")) {
                    if (list.size() < max) {
                        String ip = address.path("ip").asText("");
                        // net.JoinHostPort: an IPv6 address in brackets.
                        String host = ip.contains(":") ? "[" + ip + "]" : ip;
                        list.add(
                                ports.size() == 0
                                        ? ip
                                        : host + ":" + ports.get(p).path("port").asInt());
                    }
                    count++;
                }
            }
        }
        String joined = String.join(",", list);
        return count > max ? joined + " + " + (count - max) + " more..." : joined;
    }

    /**
     * {@code printEvent}: Last Seen falls back to First Seen, which falls back to {@code eventTime}; a series counts
     * its own; the object is {@code <kind>/<name>} in lower case; the source is component and host.
     */
    static List<Object> eventCells(JsonNode event, Instant now) {
        String first = event.hasNonNull("firstTimestamp")
                ? since(event.path("firstTimestamp").asText(), now)
                : since(event.path("eventTime").asText(""), now);
        String last = event.hasNonNull("lastTimestamp")
                ? since(event.path("lastTimestamp").asText(), now)
                : first;
        int count = event.path("count").asInt(0);
        JsonNode series = event.path("series");
        if (series.isObject()) {
            last = since(series.path("lastObservedTime").asText(""), now);
            count = series.path("count").asInt(0);
        } else if (count == 0) {
            count = 1;
        }
        JsonNode involved = event.path("involvedObject");
        String kind = involved.path("kind").asText("").toLowerCase(java.util.Locale.ROOT);
        String target = involved.path("name").asText("").isEmpty()
                ? kind
                : kind + "/" + involved.path("name").asText();
        String component = firstNonEmpty(
                event.path("source").path("component").asText(""),
                event.path("reportingComponent").asText(""));
        String instance = firstNonEmpty(
                event.path("source").path("host").asText(""),
                event.path("reportingInstance").asText(""));
        return List.of(
                last,
                event.path("type").asText(""),
                event.path("reason").asText(""),
                target,
                involved.path("fieldPath").asText(""),
                instance.isEmpty() ? component : component + ", " + instance,
                event.path("message").asText("").strip(),
                first,
                count,
                name(event));
    }

    private static String firstNonEmpty(String a, String b) {
        return a.isEmpty() ? b : a;
    }

    private static String join(JsonNode values) {
        List<String> out = new ArrayList<>();
        values.forEach(v -> out.add(v.asText()));
        return String.join(",", out);
    }

    /**
     * {@code printPod} (pkg/printers/internalversion/printers.go). Init containers first: the first one not done gives
     * the status ({@code Init:N/M} while it runs or waits to, {@code Init:<reason>} once it failed or waits with a
     * reason); a regular one is done once it exited 0, a sidecar once it started, and a sidecar counts in READY like a
     * main container. The main containers decide once initialization is over or the Initialized condition is True.
     */
    static List<Object> podCells(JsonNode pod, Instant now) {
        JsonNode status = pod.path("status");
        String phase = status.path("phase").asText("");
        String reason = status.path("reason").asText("").isEmpty()
                ? phase
                : status.path("reason").asText();
        JsonNode initSpecs = pod.path("spec").path("initContainers");
        Set<String> sidecars = new HashSet<>();
        for (JsonNode c : initSpecs) {
            if ("Always".equals(c.path("restartPolicy").asText(""))) {
                sidecars.add(c.path("name").asText());
            }
        }
        int total = pod.path("spec").path("containers").size() + sidecars.size();
        int restarts = 0;
        int sidecarRestarts = 0;
        int ready = 0;
        boolean initializing = false;
        JsonNode initStatuses = status.path("initContainerStatuses");
        for (int i = 0; i < initStatuses.size(); i++) {
            JsonNode c = initStatuses.get(i);
            boolean sidecar = sidecars.contains(c.path("name").asText());
            restarts += c.path("restartCount").asInt(0);
            if (sidecar) {
                sidecarRestarts += c.path("restartCount").asInt(0);
            }
            JsonNode state = c.path("state");
            JsonNode terminated = state.path("terminated");
            boolean isTerminated = !terminated.isMissingNode() && !terminated.isNull();
            String waiting = state.path("waiting").path("reason").asText("");
            if (isTerminated && terminated.path("exitCode").asInt(0) == 0) {
                continue;
            }
            if (sidecar && c.path("started").asBoolean(false)) {
                if (c.path("ready").asBoolean(false)) {
                    ready++;
                }
                continue;
            }
            if (isTerminated) {
                String r = terminated.path("reason").asText("");
                int signal = terminated.path("signal").asInt(0);
                reason = !r.isEmpty()
                        ? "Init:" + r
                        : signal != 0
                                ? "Init:Signal:" + signal
                                : "Init:ExitCode:" + terminated.path("exitCode").asInt(0);
            } else if (!waiting.isEmpty() && !waiting.equals("PodInitializing")) {
                reason = "Init:" + waiting;
            } else {
                reason = "Init:" + i + "/" + initSpecs.size();
            }
            initializing = true;
            break;
        }
        if (!initializing || hasCondition(status, "Initialized")) {
            restarts = sidecarRestarts;
            boolean hasRunning = false;
            JsonNode statuses = status.path("containerStatuses");
            // Upstream walks the statuses from the last, so the first container's reason wins.
            for (int i = statuses.size() - 1; i >= 0; i--) {
                JsonNode c = statuses.get(i);
                restarts += c.path("restartCount").asInt(0);
                JsonNode state = c.path("state");
                String waiting = state.path("waiting").path("reason").asText("");
                JsonNode terminated = state.path("terminated");
                if (!waiting.isEmpty()) {
                    reason = waiting;
                } else if (!terminated.isMissingNode() && !terminated.isNull()) {
                    String r = terminated.path("reason").asText("");
                    int signal = terminated.path("signal").asInt(0);
                    reason = !r.isEmpty()
                            ? r
                            : signal != 0
                                    ? "Signal:" + signal
                                    : "ExitCode:" + terminated.path("exitCode").asInt(0);
                } else if (c.path("ready").asBoolean(false) && state.has("running")) {
                    hasRunning = true;
                    ready++;
                }
            }
            if (reason.equals("Completed") && hasRunning) {
                reason = hasCondition(status, "Ready") ? "Running" : "NotReady";
            }
        }
        boolean deleting = pod.path("metadata").hasNonNull("deletionTimestamp");
        if (deleting && "NodeLost".equals(status.path("reason").asText(""))) {
            reason = "Unknown";
        } else if (deleting && !phase.equals("Succeeded") && !phase.equals("Failed")) {
            // A pod whose containers have all finished shows how they ended, not Terminating (IsPodPhaseTerminal).
            reason = "Terminating";
        }
        List<Object> cells = new ArrayList<>(List.of(name(pod), ready + "/" + total, reason, restarts, age(pod, now)));
        JsonNode podIPs = status.path("podIPs");
        String ip = podIPs.size() > 0
                ? podIPs.get(0).path("ip").asText("")
                : status.path("podIP").asText("");
        cells.add(orNone(ip));
        cells.add(orNone(pod.path("spec").path("nodeName").asText("")));
        cells.add(orNone(status.path("nominatedNodeName").asText("")));
        JsonNode gates = pod.path("spec").path("readinessGates");
        String readinessGates = NONE;
        if (gates.size() > 0) {
            int trueGates = 0;
            for (JsonNode gate : gates) {
                if (hasCondition(status, gate.path("conditionType").asText())) {
                    trueGates++;
                }
            }
            readinessGates = trueGates + "/" + gates.size();
        }
        cells.add(readinessGates);
        return cells;
    }

    /** {@code printNode}: Ready or NotReady (Unknown without the condition), roles from the node-role labels. */
    static List<Object> nodeCells(JsonNode node, Instant now) {
        JsonNode status = node.path("status");
        List<String> conditions = new ArrayList<>();
        for (JsonNode c : status.path("conditions")) {
            if ("Ready".equals(c.path("type").asText())) {
                conditions.add("True".equals(c.path("status").asText()) ? "Ready" : "NotReady");
            }
        }
        if (conditions.isEmpty()) {
            conditions.add("Unknown");
        }
        if (node.path("spec").path("unschedulable").asBoolean(false)) {
            conditions.add("SchedulingDisabled");
        }
        TreeSet<String> roles = new TreeSet<>();
        node.path("metadata").path("labels").fields().forEachRemaining(label -> {
            if (label.getKey().startsWith("node-role.kubernetes.io/")
                    && label.getKey().length() > "node-role.kubernetes.io/".length()) {
                roles.add(label.getKey().substring("node-role.kubernetes.io/".length()));
            } else if (label.getKey().equals("kubernetes.io/role")
                    && !label.getValue().asText("").isEmpty()) {
                roles.add(label.getValue().asText());
            }
        });
        JsonNode info = status.path("nodeInfo");
        return List.of(
                name(node),
                String.join(",", conditions),
                roles.isEmpty() ? NONE : String.join(",", roles),
                age(node, now),
                info.path("kubeletVersion").asText(""),
                address(status, "InternalIP"),
                address(status, "ExternalIP"),
                orUnknown(info.path("osImage").asText("")),
                orUnknown(info.path("kernelVersion").asText("")),
                orUnknown(info.path("containerRuntimeVersion").asText("")));
    }

    /**
     * {@code translateTimestampSince}: the object's age at {@code now}, or {@code <unknown>} without a
     * creationTimestamp.
     */
    static String age(JsonNode object, Instant now) {
        return since(object.path("metadata").path("creationTimestamp").asText(""), now);
    }

    /** {@code translateTimestampSince} of any timestamp ("" is the zero time: {@code <unknown>}). */
    static String since(String created, Instant now) {
        if (created.isEmpty()) {
            return "<unknown>";
        }
        try {
            return humanDuration(Duration.between(Instant.parse(created), now));
        } catch (DateTimeParseException e) {
            return "<unknown>";
        }
    }

    /**
     * {@code duration.HumanDuration} ({@code staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go}): about two
     * significant figures, {@code 90s}, {@code 5m3s}, {@code 47m}, {@code 3h5m}, {@code 2d3h}, {@code 1y20d}. Up to 2 s
     * in the future counts as now (clock skew); more is {@code <invalid>}.
     */
    static String humanDuration(Duration d) {
        long seconds = d.getSeconds() + (d.isNegative() && d.getNano() > 0 ? 1 : 0); // Go truncates toward zero
        if (seconds < -1) {
            return "<invalid>";
        } else if (seconds < 0) {
            return "0s";
        } else if (seconds < 60 * 2) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            long s = seconds % 60;
            return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
        } else if (minutes < 60 * 3) {
            return minutes + "m";
        }
        long hours = seconds / 3600;
        if (hours < 8) {
            long m = minutes % 60;
            return m == 0 ? hours + "h" : hours + "h" + m + "m";
        } else if (hours < 48) {
            return hours + "h";
        } else if (hours < 24 * 8) {
            long h = hours % 24;
            return h == 0 ? hours / 24 + "d" : hours / 24 + "d" + h + "h";
        } else if (hours < 24 * 365 * 2) {
            return hours / 24 + "d";
        } else if (hours < 24 * 365 * 8) {
            long dy = hours / 24 % 365;
            return dy == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + dy + "d";
        }
        return hours / 24 / 365 + "y";
    }

    private static boolean hasCondition(JsonNode status, String type) {
        for (JsonNode c : status.path("conditions")) {
            if (type.equals(c.path("type").asText())) {
                return "True".equals(c.path("status").asText());
            }
        }
        return false;
    }

    private static String address(JsonNode status, String type) {
        for (JsonNode a : status.path("addresses")) {
            if (type.equals(a.path("type").asText())) {
                return a.path("address").asText();
            }
        }
        return NONE;
    }

    private static String name(JsonNode object) {
        return object.path("metadata").path("name").asText("");
    }

    private static String orNone(String s) {
        return s.isEmpty() ? NONE : s;
    }

    private static String orUnknown(String s) {
        return s.isEmpty() ? "<unknown>" : s;
    }
}
