package io.podfall.kubelet.nodelease;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.podfall.kubelet.nodestatus.Heartbeat;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.UpdateRequest;
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
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The kubelet's node lease controller (pkg/kubelet/nodelease, on
 * staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go): the frequent, cheap heartbeat of each node
 * this kubelet simulates. Each node holds a Lease of its own name in {@value #NAMESPACE}, with holderIdentity the node,
 * leaseDurationSeconds the configured duration (40 s upstream) and an ownerReference to its Node (setNodeOwnerFunc), so
 * the garbage collector removes it with the node. The node lifecycle controller reads a renewal as a sign of life.
 *
 * <p><b>Creating.</b> As soon as the kubelet sees its Node stored (it knows its uid then) and holds no Lease for it and
 * has asked for none (ensureLease), it asks to create one, renewTime the time of that fact. A Lease removed (someone
 * deleted it) is created again at once.
 *
 * <p><b>Renewing.</b> Every renew interval (a quarter of the duration, renewIntervalFraction: 10 s of 40 s) the kubelet
 * sets the Lease's renewTime to the due time and PUTs the Lease as it last saw it, without a resourceVersion (no
 * conflict to retry: the kubelet is the Lease's one writer). The interval runs on the grid of the Lease's renewTime
 * ({@link Heartbeat}): each fact of the Lease sets the timer (key {@code nodelease/<node>}) to the next renewTime + k ×
 * interval after it. So the renewals follow what the API server stored: a kubelet rebuilding its state from the log
 * fires at the same instants it fired live; a kubelet that was down renews once, then goes on from now, without a burst
 * of the renewals it missed. A renewal is no consequence of the fact that set its timer: it is a request of its own
 * (its own flow, not that of the node's registration), with an id derived from the node and the due time, so the same
 * due time never renews twice, live or rebuilt.
 *
 * <p>One request per node is in flight at a time; it ends with the Lease fact it caused, or its refusal, after which
 * the kubelet tries again one renew interval later (upstream backs off and retries).
 */
public final class NodeLeaseController implements Part<NodeLeaseState> {
    /** The namespace of the nodes' Leases (v1.NamespaceNodeLease). */
    public static final String NAMESPACE = "kube-node-lease";
    /** The kubelet's default nodeLeaseDurationSeconds. */
    public static final int DEFAULT_LEASE_DURATION_SECONDS = 40;
    /** pkg/kubelet/kubelet.go nodeLeaseRenewIntervalFraction: the renew interval, a fraction of the duration. */
    static final double RENEW_INTERVAL_FRACTION = 0.25;

    private final List<String> nodeNames;
    private final int leaseDurationSeconds;
    private final Duration renewInterval;

    public NodeLeaseController(List<String> nodeNames, int leaseDurationSeconds) {
        if (leaseDurationSeconds <= 0) {
            throw new IllegalArgumentException("the node lease duration must be positive, not " + leaseDurationSeconds);
        }
        this.nodeNames = List.copyOf(nodeNames);
        this.leaseDurationSeconds = leaseDurationSeconds;
        this.renewInterval = Duration.ofMillis(Math.round(leaseDurationSeconds * 1000 * RENEW_INTERVAL_FRACTION));
    }

    public Duration renewInterval() {
        return renewInterval;
    }

    @Override
    public NodeLeaseState newState() {
        return new NodeLeaseState();
    }

    @Override
    public void handle(NodeLeaseState state, Event event, Effects.Builder out) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            state.requests
                    .refused(event.causationId())
                    .ifPresent(node ->
                            out.timer(new NodeLeaseTimer(node), event.time().plus(renewInterval)));
            return;
        }
        if (!EventTypes.OBJECT_CHANGES.contains(event.type())) {
            return;
        }
        ObjectChange change = ObjectChange.of(event);
        boolean removed = event.is(EventTypes.OBJECT_REMOVED);
        if (ResourceType.NODES.plural().equals(change.resource())) {
            nodeChanged(state, event, change.object(Node.class), removed, out);
        } else if (ResourceType.LEASES.plural().equals(change.resource())) {
            leaseChanged(state, event, change.object(Lease.class), removed, out);
        }
    }

    /** A renewal is due (or a refused request waited): renew, or create the Lease if there is none. */
    @Override
    public void fire(NodeLeaseState state, Timer timer, Effects.Builder out) {
        if (!(timer.key() instanceof NodeLeaseTimer key)) {
            return;
        }
        String node = key.node();
        if (!state.nodeUids.containsKey(node) || state.requests.inFlight(node)) {
            return;
        }
        String id = Ids.derived("node-lease", node, timer.at().toString());
        Lease lease = state.leases.get(node).orElse(null);
        String type = lease == null ? EventTypes.CREATION_REQUESTED : EventTypes.UPDATE_REQUESTED;
        out.request(
                id,
                source(node),
                type,
                subject(node),
                lease == null ? creation(state, node, out.causeTime()) : renewal(state, lease, out.causeTime()));
        state.requests.requested(node, out.lastEventId(), type);
    }

    private void nodeChanged(NodeLeaseState state, Event event, Node node, boolean removed, Effects.Builder out) {
        String name = node.getMetadata().getName();
        if (!nodeNames.contains(name)) {
            return;
        }
        if (removed) {
            state.nodeUids.remove(name);
            state.requests.forget(name);
            out.cancelTimer(new NodeLeaseTimer(name));
            return;
        }
        state.nodeUids.put(name, node.getMetadata().getUid());
        if (!event.is(EventTypes.OBJECT_LISTED)) { // listed at a slice's start: its Lease is listed too, maybe after it
            ensureLease(state, name, out);
        }
    }

    private void leaseChanged(NodeLeaseState state, Event event, Lease lease, boolean removed, Effects.Builder out) {
        String name = lease.getMetadata().getName();
        if (!NAMESPACE.equals(lease.getMetadata().getNamespace()) || !nodeNames.contains(name)) {
            return;
        }
        if (removed) {
            state.leases.remove(name);
            ensureLease(state, name, out);
            return;
        }
        if (!state.leases.observe(lease)) {
            return;
        }
        state.requests.answered(name, event.causationId());
        Instant renewed = lease.getSpec() == null || lease.getSpec().getRenewTime() == null
                ? event.time()
                : lease.getSpec().getRenewTime().toInstant();
        out.timer(new NodeLeaseTimer(name), Heartbeat.nextDue(renewed, renewInterval, event.time()));
    }

    /** ensureLease: a node known to the API server without a Lease gets one, unless a request is in flight. */
    private void ensureLease(NodeLeaseState state, String node, Effects.Builder out) {
        if (state.nodeUids.containsKey(node) && state.leases.get(node).isEmpty() && !state.requests.inFlight(node)) {
            out.emit(
                    source(node), EventTypes.CREATION_REQUESTED, subject(node), creation(state, node, out.causeTime()));
            state.requests.requested(node, out.lastEventId(), EventTypes.CREATION_REQUESTED);
        }
    }

    /** newLease: the node's Lease, held by the node, renewed at {@code at}. */
    private CreationRequest creation(NodeLeaseState state, String node, Instant at) {
        Lease lease = new LeaseBuilder()
                .withNewMetadata()
                .withName(node)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(node)
                .withLeaseDurationSeconds(leaseDurationSeconds)
                .endSpec()
                .build();
        return new CreationRequest(ResourceType.LEASES.plural(), NAMESPACE, Json.tree(renewed(state, lease, at)));
    }

    /** The Lease as last seen, renewed at {@code at}, without a resourceVersion. */
    private UpdateRequest renewal(NodeLeaseState state, Lease seen, Instant at) {
        Lease lease = renewed(
                state,
                new LeaseBuilder(seen)
                        .editMetadata()
                        .withResourceVersion(null)
                        .endMetadata()
                        .build(),
                at);
        return new UpdateRequest(ResourceType.LEASES.plural(), NAMESPACE, node(lease), null, Json.tree(lease));
    }

    /**
     * renewTime set (a MicroTime: microseconds, UTC), and the Node as owner if the Lease names none (setNodeOwnerFunc).
     */
    private static Lease renewed(NodeLeaseState state, Lease lease, Instant at) {
        LeaseBuilder b = new LeaseBuilder(lease)
                .editSpec()
                .withRenewTime(ZonedDateTime.ofInstant(at.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC))
                .endSpec();
        String uid = state.nodeUids.get(node(lease));
        if (lease.getMetadata().getOwnerReferences().isEmpty() && uid != null) {
            b.editMetadata()
                    .addToOwnerReferences(new OwnerReferenceBuilder()
                            .withApiVersion("v1")
                            .withKind("Node")
                            .withName(node(lease))
                            .withUid(uid)
                            .build())
                    .endMetadata();
        }
        return b.build();
    }

    private static String node(Lease lease) {
        return lease.getMetadata().getName();
    }

    private static String source(String node) {
        return "/kubelet/" + node;
    }

    private static String subject(String node) {
        return Subjects.of(NAMESPACE, ResourceType.LEASES.plural(), node);
    }
}
