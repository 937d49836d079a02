package io.podfall.apiserver.rest;

import io.podfall.model.k8s.ResourceType;
import java.util.List;

/**
 * The column definitions of the server-side Table, per resource type: the {@code columnDefinitions} that
 * {@code AddHandlers} in {@code pkg/printers/internalversion/printers.go} registers with each print function (name,
 * type, format, description and priority; priority-1 columns are the ones kubectl shows only with {@code -o wide}). The
 * cells that fill them are {@link Printers}'.
 */
final class TableColumns {
    private static final String NAME_DOC =
            "Name must be unique within a namespace. Is required when creating resources, although some "
                    + "resources may allow a client to request the generation of an appropriate name automatically.";
    private static final String AGE_DOC =
            "CreationTimestamp is a timestamp representing the server time when this object was created.";

    /** One entry of {@code columnDefinitions} ({@code metav1.TableColumnDefinition}). */
    record Column(String name, String type, String format, String description, int priority) {}

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

    private static final List<Column> POD_DISRUPTION_BUDGET_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column("Min Available", "string", "", "The minimum number of pods that must be available.", 0),
            new Column("Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.", 0),
            new Column(
                    "Allowed Disruptions",
                    "integer",
                    "",
                    "Calculated number of pods that may be disrupted at this time.",
                    0),
            new Column("Age", "string", "", AGE_DOC, 0));

    private static final List<Column> NAMESPACE_COLUMNS = List.of(
            new Column("Name", "string", "name", NAME_DOC, 0),
            new Column("Status", "string", "", "The status of the namespace", 0),
            new Column("Age", "string", "", AGE_DOC, 0));

    private TableColumns() {}

    /** The columns of a Table of {@code type}, in the order of the cells {@link Printers#cells} prints. */
    static List<Column> of(ResourceType type) {
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
            case PODDISRUPTIONBUDGETS -> POD_DISRUPTION_BUDGET_COLUMNS;
        };
    }
}
