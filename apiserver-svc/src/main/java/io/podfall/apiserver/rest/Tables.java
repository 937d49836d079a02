package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.apiserver.registry.LabelSelectors;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The server-side printing {@code kubectl get} asks for with {@code Accept:
 * application/json;as=Table;v=v1;g=meta.k8s.io}: a {@code meta.k8s.io} Table whose cells the server formats, with the
 * column sets and cell rules of {@code pkg/printers/internalversion/printers.go} ({@code printPod}, {@code printNode},
 * {@code printDeployment}, {@code printReplicaSet}, {@code printService}, {@code printEndpoints}, {@code printEvent},
 * {@code printNamespace}, {@code printLease}). kubectl prints the cells verbatim and shows priority-1 columns only with
 * {@code -o wide}. Pure: the current (simulated) time is an input, for the Age column.
 */
final class Tables {
    static final String GROUP = "meta.k8s.io";
    private static final String NONE = "<none>";
    private static final String NAME_DOC =
            "Name must be unique within a namespace. Is required when creating resources, although some "
                    + "resources may allow a client to request the generation of an appropriate name automatically.";
    private static final String AGE_DOC =
            "CreationTimestamp is a timestamp representing the server time when this object was created.";

    private record Column(String name, String type, String format, String description, int priority) {}

    private static final List<Column> POD_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column("Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0),
            new Column("Status", "string", "", "The aggregate status of the containers in this pod.", 0),
            new Column(
                    "Restarts",
                    "integer",
                    "",
                    "The number of times the containers in this pod have been restarted.",
                    0),
            new Column("Age", "string", "", AGE_DOC, 0),
            new Column("IP", "string", "", "IP address allocated to the pod. Routable at least within the cluster.", 1),
            new Column("Node", "string", "", "NodeName is a request to schedule this pod onto a specific node.", 1),
            new Column(
                    "Nominated Node",
                    "string",
                    "",
                    "nominatedNodeName is set only when this pod preempts other pods on the node.",
                    1),
            new Column(
                    "Readiness Gates",
                    "string",
                    "",
                    "If specified, all readiness gates will be evaluated for pod readiness.",
                    1));

    private static final List<Column> NODE_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column("Status", "string", "", "The status of the node", 0),
            new Column("Roles", "string", "", "The roles of the node", 0),
            new Column("Age", "string", "", AGE_DOC, 0),
            new Column("Version", "string", "", "Kubelet Version reported by the node.", 0),
            new Column("Internal-IP", "string", "", "List of addresses reachable to the node.", 1),
            new Column("External-IP", "string", "", "List of addresses reachable to the node.", 1),
            new Column(
                    "OS-Image",
                    "string",
                    "",
                    "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
                    1),
            new Column(
                    "Kernel-Version",
                    "string",
                    "",
                    "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
                    1),
            new Column(
                    "Container-Runtime",
                    "string",
                    "",
                    "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
                    1));

    private static final Column CONTAINERS =
            new Column("Containers", "string", "", "Names of each container in the template.", 1);
    private static final Column IMAGES =
            new Column("Images", "string", "", "Images referenced by each container in the template.", 1);
    private static final Column SELECTOR = new Column(
            "Selector",
            "string",
            "",
            "Label selector for pods. Existing ReplicaSets whose "
                    + "pods are selected by this will be the ones affected by this deployment.",
            1);

    private static final List<Column> DEPLOYMENT_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column("Ready", "string", "", "Number of the pod with ready state", 0),
            new Column(
                    "Up-to-date",
                    "integer",
                    "",
                    "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
                    0),
            new Column(
                    "Available",
                    "integer",
                    "",
                    "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
                    0),
            new Column("Age", "string", "", AGE_DOC, 0),
            CONTAINERS,
            IMAGES,
            SELECTOR);

    private static final List<Column> REPLICASET_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column("Desired", "integer", "", "Replicas is the number of desired replicas.", 0),
            new Column("Current", "integer", "", "Replicas is the most recently observed number of replicas.", 0),
            new Column("Ready", "integer", "", "The number of ready replicas for this replica set.", 0),
            new Column("Age", "string", "", AGE_DOC, 0),
            CONTAINERS,
            IMAGES,
            SELECTOR);

    private static final List<Column> SERVICE_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column("Type", "string", "", "type determines how the Service is exposed.", 0),
            new Column("Cluster-IP", "string", "", "clusterIP is the IP address of the service.", 0),
            new Column(
                    "External-IP",
                    "string",
                    "",
                    "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
                    0),
            new Column("Port(s)", "string", "", "The list of ports that are exposed by this service.", 0),
            new Column("Age", "string", "", AGE_DOC, 0),
            new Column(
                    "Selector",
                    "string",
                    "",
                    "Route service traffic to pods with label keys and values matching this selector.",
                    1));

    private static final List<Column> ENDPOINTS_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column("Endpoints", "string", "", "Endpoints of this service.", 0),
            new Column("Age", "string", "", AGE_DOC, 0));

    private static final List<Column> EVENT_COLUMNS = List.of(
            new Column(
                    "Last Seen",
                    "string",
                    "",
                    "The time at which the most recent occurrence of this event was recorded.",
                    0),
            new Column(
                    "Type",
                    "string",
                    "",
                    "Type of this event (Normal, Warning), new types could be added in the future.",
                    0),
            new Column(
                    "Reason",
                    "string",
                    "",
                    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
                    0),
            new Column("Object", "string", "", "The object that this event is about.", 0),
            new Column(
                    "Subobject",
                    "string",
                    "",
                    "The subobject (fieldPath) of the involved object this event is about.",
                    1),
            new Column("Source", "string", "", "The component reporting this event.", 1),
            new Column("Message", "string", "", "A human-readable description of the status of this operation.", 0),
            new Column("First Seen", "string", "", "The time at which the event was first recorded.", 1),
            new Column("Count", "integer", "", "The number of times this event has occurred.", 1),
            new Column("Name", "string", "name", NAME_DOC, 1));

    private static final List<Column> LEASE_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column(
                    "Holder",
                    "string",
                    "",
                    "holderIdentity contains the identity of the holder of a current lease. If Coordinated "
                            + "Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
                    0),
            new Column("Age", "string", "", AGE_DOC, 0));

    private static final List<Column> NAMESPACE_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column("Status", "string", "", "The status of the namespace", 0),
            new Column("Age", "string", "", AGE_DOC, 0));

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
        for (Column c : columns(type)) {
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
        cells(type, object, now).forEach(c -> {
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

    private static List<Column> columns(ResourceType type) {
        return switch (type) {
            case PODS -> POD_COLUMNS;
            case NODES -> NODE_COLUMNS;
            case NAMESPACES -> NAMESPACE_COLUMNS;
            case SERVICES -> SERVICE_COLUMNS;
            case ENDPOINTS -> ENDPOINTS_COLUMNS;
            case EVENTS -> EVENT_COLUMNS;
            case DEPLOYMENTS -> DEPLOYMENT_COLUMNS;
            case REPLICASETS -> REPLICASET_COLUMNS;
            case LEASES -> LEASE_COLUMNS;
        };
    }

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
        };
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

    /** {@code printPod}, for pods without init containers (podfall's kubelet runs none). */
    static List<Object> podCells(JsonNode pod, Instant now) {
        JsonNode status = pod.path("status");
        String phase = status.path("phase").asText("");
        String reason = status.path("reason").asText("").isEmpty()
                ? phase
                : status.path("reason").asText();
        int restarts = 0;
        int ready = 0;
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
        boolean deleting = pod.path("metadata").hasNonNull("deletionTimestamp");
        if (deleting && "NodeLost".equals(status.path("reason").asText(""))) {
            reason = "Unknown";
        } else if (deleting && !phase.equals("Succeeded") && !phase.equals("Failed")) {
            // A pod whose containers have all finished shows how they ended, not Terminating (IsPodPhaseTerminal).
            reason = "Terminating";
        }
        List<Object> cells = new ArrayList<>(List.of(
                name(pod), ready + "/" + pod.path("spec").path("containers").size(), reason, restarts, age(pod, now)));
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
