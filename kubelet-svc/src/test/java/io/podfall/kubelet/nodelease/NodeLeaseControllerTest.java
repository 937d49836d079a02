package io.podfall.kubelet.nodelease;

import static io.podfall.kubelet.testing.ApiFacts.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.podfall.kubelet.nodestatus.InitialNode;
import io.podfall.kubelet.testing.ApiFacts;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeLeaseControllerTest {
    private static final String NODE = "node-1";

    private final ApiFacts api = new ApiFacts();
    private NodeLeaseController controller = new NodeLeaseController(List.of(NODE), 40);
    private NodeLeaseState state = controller.newState();
    /** Every fact handled, so that a test can rebuild a kubelet from them. */
    private final List<Event> log = new ArrayList<>();

    private Effects handle(Event event) {
        return handle(event, event.time());
    }

    private Effects handle(Event event, Instant now) {
        log.add(event);
        Effects.Builder out = Effects.of(event, now);
        controller.handle(state, event, out);
        return out.build();
    }

    private Effects fire(Timer timer, Instant now) {
        Effects.Builder out = Effects.of(timer, now);
        controller.fire(state, timer, out);
        return out.build();
    }

    private Event nodeCreated() {
        return api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, InitialNode.of(NODE, T0));
    }

    private static Event only(Effects effects, String type) {
        assertEquals(1, effects.events().size(), () -> effects.events().toString());
        assertEquals(type, effects.events().get(0).type());
        return effects.events().get(0);
    }

    private static Lease lease(Event request) {
        return request.is(EventTypes.CREATION_REQUESTED)
                ? io.podfall.model.Json.convert(
                        request.data(CreationRequest.class).object(), Lease.class)
                : io.podfall.model.Json.convert(
                        request.data(UpdateRequest.class).object(), Lease.class);
    }

    /** The node registered and its Lease created, as the API server answers; returns the timer of the first renewal. */
    private Timer registered() {
        Event create = only(handle(nodeCreated()), EventTypes.CREATION_REQUESTED);
        Effects answered = handle(api.answer(create, EventTypes.OBJECT_CREATED, ResourceType.LEASES, lease(create)));
        assertEquals(1, answered.timers().size());
        return answered.timers().get(0);
    }

    @Test
    void aRegisteredNodeGetsItsLeaseInKubeNodeLeaseHeldByItOwnedByItRenewedAtOnce() {
        Event create = only(handle(nodeCreated()), EventTypes.CREATION_REQUESTED);

        assertEquals("namespaces/kube-node-lease/leases/node-1", create.subject());
        assertEquals("/kubelet/node-1", create.source());
        CreationRequest request = create.data(CreationRequest.class);
        assertEquals("leases", request.resource());
        assertEquals("kube-node-lease", request.namespace());
        Lease lease = lease(create);
        assertEquals("node-1", lease.getSpec().getHolderIdentity());
        assertEquals(40, lease.getSpec().getLeaseDurationSeconds());
        assertEquals(T0, lease.getSpec().getRenewTime().toInstant());
        var owner = lease.getMetadata().getOwnerReferences().get(0);
        assertEquals(
                List.of("v1", "Node", "node-1", "uid-node-1"),
                List.of(owner.getApiVersion(), owner.getKind(), owner.getName(), owner.getUid()));
        assertTrue(
                create.data()
                        .path("object")
                        .path("spec")
                        .path("renewTime")
                        .asText()
                        .matches("2026-03-01T10:00:00\\.000000Z"),
                "a MicroTime: " + create.data());
    }

    @Test
    void aNodeUpdatedWhileItsLeaseIsBeingCreatedAsksForNoSecondLease() {
        handle(nodeCreated());
        Effects again = handle(api.fact(EventTypes.OBJECT_UPDATED, ResourceType.NODES, InitialNode.of(NODE, T0)));
        assertTrue(again.events().isEmpty());
    }

    @Test
    void theLeaseIsRenewedEveryQuarterOfItsDurationEachRenewalARequestOfItsOwn() {
        Timer first = registered();
        assertEquals(new NodeLeaseTimer("node-1"), first.key());
        assertEquals(T0.plusSeconds(10), first.at(), "renewIntervalFraction 0.25 of 40 s");

        Effects renewal = fire(first, first.at().plusMillis(30));
        Event renew = only(renewal, EventTypes.UPDATE_REQUESTED);
        assertEquals(renew.id(), renew.correlationId(), "a flow of its own, not the registration's");
        assertNull(renew.causationId());
        assertEquals(T0.plusSeconds(10), lease(renew).getSpec().getRenewTime().toInstant(), "renewed at the due time");
        assertNull(
                lease(renew).getMetadata().getResourceVersion(),
                "an unconditional update: the kubelet is its one writer");
        UpdateRequest update = renew.data(UpdateRequest.class);
        assertEquals(
                List.of("leases", "kube-node-lease", "node-1"),
                List.of(update.resource(), update.namespace(), update.name()));

        Effects renewed = handle(api.at(T0.plusSeconds(10).plusMillis(60))
                .answer(renew, EventTypes.OBJECT_UPDATED, ResourceType.LEASES, lease(renew)));
        assertEquals(
                T0.plusSeconds(20),
                renewed.timers().get(0).at(),
                "on the grid of the renewTime, not drifting with the latency");
    }

    @Test
    void noRenewalWhileOneIsInFlight() {
        Timer first = registered();
        fire(first, first.at());
        assertTrue(fire(
                        new Timer(first.key(), first.at().plusSeconds(10), first.cause()),
                        first.at().plusSeconds(10))
                .events()
                .isEmpty());
    }

    @Test
    void aRebuildFiresAtTheSameInstantsAndRenewsWithTheSameIdsSoNothingIsRenewedTwiceForOneDueTime() {
        Timer first = registered();
        Event renew = fire(first, first.at().plusMillis(40)).events().get(0);
        handle(
                api.at(first.at().plusMillis(90))
                        .answer(renew, EventTypes.OBJECT_UPDATED, ResourceType.LEASES, lease(renew)),
                first.at().plusMillis(120));
        List<Event> live = List.copyOf(log);

        controller = new NodeLeaseController(List.of(NODE), 40);
        state = controller.newState();
        handle(live.get(0), live.get(0).time());
        Timer rebuilt = handle(live.get(1), live.get(1).time()).timers().get(0);
        assertEquals(first, rebuilt, "the same first renewal, though read at the fact's time");
        assertEquals(
                renew.id(),
                fire(rebuilt, rebuilt.at()).events().get(0).id(),
                "the renewal on the log is recognised, not renewed again");
        assertEquals(
                first.at().plusSeconds(10),
                handle(live.get(2), live.get(2).time()).timers().get(0).at());
    }

    @Test
    void aKubeletBackFromALongStopRenewsOnceThenGoesOnFromNow() {
        Timer first = registered();
        Instant back = T0.plus(Duration.ofMinutes(30)).plusSeconds(3);

        Event late = fire(first, back).events().get(0);
        assertEquals(
                first.at(), lease(late).getSpec().getRenewTime().toInstant(), "the renewal decided for its due time");
        Effects renewed = handle(
                api.at(back.plusMillis(50)).answer(late, EventTypes.OBJECT_UPDATED, ResourceType.LEASES, lease(late)));

        assertEquals(
                T0.plus(Duration.ofMinutes(30)).plusSeconds(10),
                renewed.timers().get(0).at(),
                "the next renewal is the first on the grid after now: no burst of the 180 it missed");
    }

    @Test
    void aDeletedLeaseIsCreatedAgainAtOnce() {
        registered();
        Lease stored = state.lease(NODE).orElseThrow();

        Event create = only(
                handle(api.fact(EventTypes.OBJECT_REMOVED, ResourceType.LEASES, stored)),
                EventTypes.CREATION_REQUESTED);
        assertEquals("node-1", lease(create).getSpec().getHolderIdentity());
    }

    @Test
    void aRefusedRenewalIsTriedAgainOneRenewIntervalLater() {
        Timer first = registered();
        Event renew = fire(first, first.at()).events().get(0);

        Effects refused = handle(api.at(first.at().plusSeconds(1)).rejected(renew, 500));
        assertEquals(
                List.of(new Timer(
                        new NodeLeaseTimer("node-1"),
                        first.at().plusSeconds(11),
                        refused.timers().get(0).cause())),
                refused.timers());
        assertEquals(
                EventTypes.UPDATE_REQUESTED,
                fire(refused.timers().get(0), first.at().plusSeconds(11))
                        .events()
                        .get(0)
                        .type());
    }

    @Test
    void theRenewIntervalIsAQuarterOfTheConfiguredDuration() {
        controller = new NodeLeaseController(List.of(NODE), 20);
        state = controller.newState();
        assertEquals(Duration.ofSeconds(5), controller.renewInterval());
        assertEquals(T0.plusSeconds(5), registered().at());
    }

    @Test
    void otherNodesAndOtherLeasesAreNotThisKubeletsConcern() {
        Node other = InitialNode.of("node-2", T0);
        assertTrue(handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.NODES, other))
                .isEmpty());
        Lease elsewhere = new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                .withNewMetadata()
                .withName(NODE)
                .withNamespace("default")
                .endMetadata()
                .build();
        assertTrue(handle(api.fact(EventTypes.OBJECT_CREATED, ResourceType.LEASES, elsewhere))
                .isEmpty());
    }
}
