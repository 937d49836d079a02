package io.podfall.kubelet.nodestatus;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.podfall.kubelet.podworkers.EvictionManager;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Ids;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The kubelet's node status updates (pkg/kubelet/kubelet_node_status.go syncNodeStatus, tryUpdateNodeStatus) for the
 * nodes it simulates: it keeps each Node's conditions ({@link NodeConditions}) and its capacity ({@link NodeCapacity})
 * as the API server should hold them, and posts them with a PATCH of {@code nodes/<name>/status} (a strategic merge of
 * the conditions by type, as PatchNodeStatus sends it, with no resourceVersion: the kubelet's view of its own
 * conditions wins).
 *
 * <p><b>When.</b> Upstream checks every nodeStatusUpdateFrequency (10 s) and posts only if something changed or
 * nodeStatusReportFrequency ({@value #REPORT_FREQUENCY_MINUTES} min) passed since the last report: the Lease is the
 * frequent heartbeat, the status the rare one. Here both triggers are exact:
 *
 * <ul>
 *   <li>a fact of the Node that shows conditions other than the kubelet reports (a pressure annotation put on or taken
 *       off: the eviction manager's pressure becomes a condition; the node lifecycle controller's Unknown while the
 *       kubelet was away) posts at once, caused by that fact;
 *   <li>otherwise a timer (key {@code nodestatus/<node>}) is due nodeStatusReportFrequency after the Ready condition's
 *       lastHeartbeatTime ({@link Heartbeat}), and re-posts the same conditions with a new heartbeat. Such a report is
 *       no consequence of anything on the log: it is a request of its own, with an id derived from the node and the due
 *       time, so a kubelet rebuilding its state recognises it and never reports twice for one due time.
 * </ul>
 *
 * One post per node is in flight at a time; it ends with the Node fact it caused or with its refusal, after which the
 * report is tried again nodeStatusUpdateFrequency later.
 */
public final class NodeStatusSync implements Part<NodeStatusState> {
    static final long REPORT_FREQUENCY_MINUTES = 5;
    /** nodeStatusReportFrequency: how long an unchanged status goes without a report. */
    static final Duration REPORT_FREQUENCY = Duration.ofMinutes(REPORT_FREQUENCY_MINUTES);
    /** nodeStatusUpdateFrequency: how soon a refused post is tried again. */
    static final Duration UPDATE_FREQUENCY = Duration.ofSeconds(10);

    private final List<String> nodeNames;
    private final NodeCapacity capacity;

    public NodeStatusSync(List<String> nodeNames) {
        this(nodeNames, NodeCapacity.DEFAULT);
    }

    public NodeStatusSync(List<String> nodeNames, NodeCapacity capacity) {
        this.nodeNames = List.copyOf(nodeNames);
        this.capacity = capacity;
    }

    @Override
    public NodeStatusState newState() {
        return new NodeStatusState();
    }

    @Override
    public void handle(NodeStatusState state, Event event, Effects.Builder out) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            state.posts
                    .refused(event.causationId())
                    .ifPresent(node ->
                            out.timer(new NodeStatusTimer(node), event.time().plus(UPDATE_FREQUENCY)));
            return;
        }
        if (!EventTypes.OBJECT_CHANGES.contains(event.type())) {
            return;
        }
        ObjectChange change = ObjectChange.of(event);
        if (!ResourceType.NODES.plural().equals(change.resource())) {
            return;
        }
        Node node = change.object(Node.class);
        String name = node.getMetadata().getName();
        if (!nodeNames.contains(name)) {
            return;
        }
        if (event.is(EventTypes.OBJECT_REMOVED)) {
            state.nodes.remove(name);
            state.posts.forget(name);
            out.cancelTimer(new NodeStatusTimer(name));
            return;
        }
        if (!state.nodes.observe(node)) {
            return;
        }
        state.posts.answered(name, event.causationId());
        List<NodeConditions.Reported> reported = NodeConditions.of(EvictionManager.pressure(node));
        // Listed at a slice's start: what it posted before the slice is there; it reports again when due.
        if ((NodeConditions.differ(
                                reported,
                                node.getStatus() == null
                                        ? null
                                        : node.getStatus().getConditions())
                        || !InitialNode.reportsResources(node, capacity.of(name)))
                && !state.posts.asking(name, reported)
                && !event.is(EventTypes.OBJECT_LISTED)) {
            out.emit(source(name), EventTypes.PATCH_REQUESTED, subject(name), patch(node, reported, out.causeTime()));
            state.posts.requested(name, out.lastEventId(), reported);
        }
        out.timer(
                new NodeStatusTimer(name),
                Heartbeat.nextDue(lastHeartbeat(node, event.time()), REPORT_FREQUENCY, event.time()));
    }

    /** nodeStatusReportFrequency passed since the last report (or a refused post waited): report again. */
    @Override
    public void fire(NodeStatusState state, Timer timer, Effects.Builder out) {
        if (!(timer.key() instanceof NodeStatusTimer key)) {
            return;
        }
        String name = key.node();
        Node node = state.nodes.get(name).orElse(null);
        if (node == null || state.posts.inFlight(name)) {
            return;
        }
        List<NodeConditions.Reported> reported = NodeConditions.of(EvictionManager.pressure(node));
        out.request(
                Ids.derived("node-status", name, timer.at().toString()),
                source(name),
                EventTypes.PATCH_REQUESTED,
                subject(name),
                patch(node, reported, out.causeTime()));
        state.posts.requested(name, out.lastEventId(), reported);
    }

    /**
     * The strategic merge patch of {@code nodes/<name>/status} that posts the conditions at {@code at}, with the
     * capacity and allocatable resources that MachineInfo sets on every update.
     */
    private PatchRequest patch(Node node, List<NodeConditions.Reported> reported, Instant at) {
        ObjectNode patch = Json.MAPPER.createObjectNode();
        ObjectNode status = patch.putObject("status");
        Map<String, Quantity> resources = capacity.of(node.getMetadata().getName());
        status.set("capacity", Json.tree(resources));
        status.set("allocatable", Json.tree(resources));
        status.set(
                "conditions",
                Json.tree(NodeConditions.at(
                        reported,
                        node.getStatus() == null ? null : node.getStatus().getConditions(),
                        at)));
        return new PatchRequest(
                ResourceType.NODES.plural(), "", node.getMetadata().getName(), "status", PatchRequest.STRATEGIC, patch);
    }

    /** When the kubelet last reported: the Ready condition's lastHeartbeatTime, else when the fact was written. */
    private static Instant lastHeartbeat(Node node, Instant written) {
        var ready = NodeConditions.find(
                node.getStatus() == null ? null : node.getStatus().getConditions(), NodeConditions.READY);
        return ready == null || ready.getLastHeartbeatTime() == null
                ? written
                : Instant.parse(ready.getLastHeartbeatTime());
    }

    private static String source(String node) {
        return "/kubelet/" + node;
    }

    private static String subject(String node) {
        return Subjects.of("", ResourceType.NODES.plural(), node);
    }
}
