package io.podfall.kubelet.proxy;

import static io.podfall.kubelet.testing.ApiFacts.T0;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.kubelet.Kubelet;
import io.podfall.kubelet.podworkers.PodWorkers;
import io.podfall.model.Json;
import io.podfall.model.core.CompositeState;
import io.podfall.model.core.CoreHost;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.host.NodeMachine;
import io.podfall.model.proxy.ServiceRules;
import io.podfall.model.proxy.ServiceRules.RuleEndpoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KubeProxyTest {
    /** No wait and no sync time: what the rules hold, said when the fact is read. */
    private static final ProxyTiming AT_ONCE = new ProxyTiming(Duration.ZERO, Duration.ZERO);

    private CoreHost<KubeProxyState> proxy = proxy(ProxyTiming.UPSTREAM);
    private long resourceVersion;
    private int facts;

    // --- when: the runner

    @Test
    void theFirstTwoChangesSyncAtOnceAndAThirdWithinThePeriodWaitsForThePeriodSinceTheLastSyncEnded() {
        assertEquals(List.of(), deliver(service("web", "10.96.0.10", "ClusterIP", null), ms(0)));
        assertEquals(List.of(ms(100)), times(advanceTo(ms(100))), "the sync ends 100 ms later");

        deliver(slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1")), ms(200));
        List<Event> second = advanceTo(ms(300));
        assertEquals(List.of(ms(300)), times(second), "a second token: the burst");

        deliver(
                slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1"), ready("10.244.2.7", "web-2", "node-2")),
                ms(400));
        assertEquals(List.of(), advanceTo(ms(1299)), "no token left: it waits for lastRun + minSyncPeriod");
        List<Event> third = advanceTo(ms(1400));
        assertEquals(List.of(ms(1400)), times(third), "it runs at 1.3 s, its rules in effect at 1.4 s");
        assertEquals(List.of("10.244.1.5", "10.244.2.7"), ips(rules(third.get(0))));
    }

    @Test
    void aChangeThatFindsATokenRefilledRunsAtOnceThoughAnEarlierOneWaits() {
        deliver(service("web", "10.96.0.10", "ClusterIP", null), ms(0));
        deliver(slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1")), ms(200));
        advanceTo(ms(300));
        deliver(slice("web-abc", "web", ready("10.244.1.6", "web-1", "node-1")), ms(400));
        // 0.2 token left at 0.3 s, 1.25 at 1.25 s: the runner's tryRun runs at once, before its timer (1.3 s).
        deliver(slice("web-abc", "web", ready("10.244.1.7", "web-1", "node-1")), ms(1250));
        List<Event> synced = advanceTo(ms(1350));
        assertEquals(List.of(ms(1350)), times(synced));
        assertEquals(List.of("10.244.1.7"), ips(rules(synced.get(0))));
        assertEquals(List.of(), advanceTo(ms(5000)), "the timer of 1.3 s went with the run");
    }

    @Test
    void aChangeDuringASyncIsTheNextRunsAsTheSyncReturnsAndCarriesItsOwnCause() {
        Event created = service("web", "10.96.0.10", "ClusterIP", null);
        deliver(created, ms(0));
        Event sliced = slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1"));
        deliver(sliced, ms(50));

        List<Event> first = advanceTo(ms(100));
        assertEquals(List.of(List.of()), first.stream().map(e -> ips(rules(e))).toList(), "no endpoint yet");
        assertEquals(created.id(), first.get(0).causationId());

        List<Event> second = advanceTo(ms(200));
        assertEquals(List.of(ms(200)), times(second), "the next run starts as the first returns");
        assertEquals(sliced.id(), second.get(0).causationId());
        assertEquals(sliced.correlationId(), second.get(0).correlationId());
        assertEquals("/proxy/node-1", second.get(0).source());
        assertEquals(Subjects.of("default", "services", "web"), second.get(0).subject());
    }

    @Test
    void aFactReadAfterTheSyncItCameDuringHadEndedIsTriedAsThatSyncReturned() {
        deliver(service("web", "10.96.0.10", "ClusterIP", null), ms(0));
        emitted.clear();
        Event sliced =
                slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1")).at(ms(50));
        proxy.handle(sliced, ms(120), (input, effects, heldBack) -> emitted.addAll(effects.events()));
        assertEquals(List.of(ms(120)), times(emitted), "the first sync's end, rung late");
        assertEquals(List.of(), advanceTo(ms(199)));
        assertEquals(List.of(ms(200)), times(advanceTo(ms(200))), "run from 100 ms, when the first sync returned");
    }

    // --- what: the rules

    @Test
    void withNoReadyEndpointTheServingTerminatingOnesAreUsedAndMarked() {
        proxy = proxy(AT_ONCE);
        deliver(service("web", "10.96.0.10", "ClusterIP", null), ms(0));
        List<Event> synced = deliver(
                slice(
                        "web-abc",
                        "web",
                        endpoint("10.244.1.5", "web-1", "node-1", false, true, true),
                        endpoint("10.244.1.6", "web-2", "node-1", false, false, true)),
                ms(10));
        assertEquals(
                List.of(new RuleEndpoint("10.244.1.5", "web-1", "uid-web-1", "node-1", true)),
                rules(synced.get(0)).endpoints());

        synced = deliver(
                slice(
                        "web-abc",
                        "web",
                        endpoint("10.244.1.5", "web-1", "node-1", false, true, true),
                        ready("10.244.1.9", "web-3", "node-1")),
                ms(20));
        assertEquals(
                List.of(new RuleEndpoint("10.244.1.9", "web-3", "uid-web-3", "node-1", false)),
                rules(synced.get(0)).endpoints(),
                "a ready endpoint puts the terminating ones out");
    }

    @Test
    void internalTrafficPolicyLocalKeepsEachNodesOwnEndpoints() {
        proxy = proxy(AT_ONCE, "node-1", "node-2", "node-3");
        deliver(service("web", "10.96.0.10", "ClusterIP", "Local"), ms(0));
        List<Event> synced = deliver(
                slice(
                        "web-abc",
                        "web",
                        ready("10.244.1.5", "web-1", "node-1"),
                        endpoint("10.244.2.5", "web-2", "node-2", false, true, true)),
                ms(10));
        assertEquals(2, synced.size(), "node-3's rules stay empty: no change");
        assertEquals(List.of("10.244.1.5"), ips(rules(synced.get(0))));
        assertEquals("node-2", rules(synced.get(1)).node());
        assertEquals(
                List.of(new RuleEndpoint("10.244.2.5", "web-2", "uid-web-2", "node-2", true)),
                rules(synced.get(1)).endpoints(),
                "node-2's own serving-terminating one, though node-1's is ready");
    }

    @Test
    void headlessAndExternalNameServicesGetNoRules() {
        proxy = proxy(AT_ONCE);
        deliver(service("db", "None", "ClusterIP", null), ms(0));
        deliver(service("ext", "", "ExternalName", null), ms(0));
        assertEquals(List.of(), deliver(slice("db-abc", "db", ready("10.244.1.5", "db-0", "node-1")), ms(10)));
        assertEquals(List.of(), deliver(slice("ext-abc", "ext", ready("10.244.1.6", "x-0", "node-1")), ms(10)));
    }

    @Test
    void aServicesSlicesAreMergedEachAddressOnceInAddressOrderOneListSharedByAllNodes() {
        proxy = proxy(AT_ONCE, "node-1", "node-2");
        deliver(service("web", "10.96.0.10", "ClusterIP", null), ms(0));
        deliver(
                slice("web-b", "web", ready("10.244.2.9", "web-3", "node-2"), ready("10.244.1.5", "web-1", "node-1")),
                ms(10));
        List<Event> synced = deliver(
                slice("web-a", "web", ready("10.244.1.10", "web-2", "node-1"), ready("10.244.1.5", "web-1", "node-1")),
                ms(20));
        assertEquals(List.of("10.244.1.10", "10.244.1.5", "10.244.2.9"), ips(rules(synced.get(0))));
        ServiceName web = new ServiceName("default", "web");
        assertSame(
                proxy.state().nodes.get("node-1").programmed.get(web),
                proxy.state().nodes.get("node-2").programmed.get(web),
                "the nodes share one list");
        for (Event e : synced) {
            assertArrayEquals(Json.bytes(rules(e)), e.dataJson(), "the data as the record writes it");
        }
        assertEquals(
                List.of("node-1", "node-2"),
                synced.stream().map(e -> rules(e).node()).toList());
    }

    @Test
    void aRemovedServiceGetsAnEmptyListThenNothing() {
        proxy = proxy(AT_ONCE);
        Event created = service("web", "10.96.0.10", "ClusterIP", null);
        deliver(created, ms(0));
        deliver(slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1")), ms(10));
        List<Event> synced = deliver(removed(created), ms(20));
        assertEquals(List.of(List.of()), synced.stream().map(e -> ips(rules(e))).toList());
        assertEquals(List.of(), deliver(slice("web-abc", "web", ready("10.244.1.6", "web-1", "node-1")), ms(30)));
        assertTrue(proxy.state().nodes.get("node-1").programmed.isEmpty());
    }

    @Test
    void aRedeliveredOrUnchangedFactChangesNothing() {
        deliver(service("web", "10.96.0.10", "ClusterIP", null), ms(0));
        Event sliced = slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1"));
        deliver(sliced, ms(5000));
        assertEquals(1, advanceTo(ms(5100)).size());

        assertEquals(List.of(), deliver(sliced, ms(6000)), "the same resourceVersion again");
        assertEquals(List.of(), deliver(slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1")), ms(6000)));
        assertEquals(List.of(), advanceTo(ms(60_000)));
        assertEquals(Optional.empty(), proxy.nextTimer(), "no run was asked for");
    }

    // --- a stopped node

    @Test
    void aStoppedNodeSyncsNothingUntilItStartsThenSyncsWhatChangedCausedByTheStart() {
        proxy = proxy(ProxyTiming.UPSTREAM, "node-1", "node-2");
        deliver(service("web", "10.96.0.10", "ClusterIP", null), ms(0));
        advanceTo(ms(100));
        deliver(host(EventTypes.NODE_STOPPED, "node-2"), ms(1000));
        deliver(slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1")), ms(2000));
        List<Event> whileStopped = advanceTo(ms(30_000));
        assertEquals(
                List.of("/proxy/node-1"),
                whileStopped.stream().map(Event::source).toList());

        Event started = host(EventTypes.NODE_STARTED, "node-2");
        deliver(started, ms(40_000));
        List<Event> atStart = advanceTo(ms(40_100));
        assertEquals(
                List.of("/proxy/node-2"), atStart.stream().map(Event::source).toList());
        assertEquals(List.of("10.244.1.5"), ips(rules(atStart.get(0))));
        assertEquals(started.id(), atStart.get(0).causationId());
    }

    @Test
    void theKubeletRunsAProxyForEachOfItsNodes() {
        CoreHost<CompositeState> kubelet = new CoreHost<>(
                new Kubelet(new PodWorkers(List.of("node-1", "node-2")), 40, Optional.of(AT_ONCE)), true);
        List<Event> out = new ArrayList<>();
        for (Event fact : List.of(
                service("web", "10.96.0.10", "ClusterIP", null),
                slice("web-abc", "web", ready("10.244.1.5", "web-1", "node-1")))) {
            kubelet.handle(fact, T0, (input, effects, heldBack) -> out.addAll(effects.events()));
        }
        List<Event> synced =
                out.stream().filter(e -> e.is(EventTypes.PROXY_RULES_SYNCED)).toList();
        assertEquals(
                List.of("/proxy/node-1", "/proxy/node-2", "/proxy/node-1", "/proxy/node-2"),
                synced.stream().map(Event::source).toList(),
                "the Service's REJECT rules, then its endpoint");
        assertEquals(List.of("10.244.1.5"), ips(rules(synced.get(3))));
    }

    // --- fixture

    private static CoreHost<KubeProxyState> proxy(ProxyTiming timing, String... nodes) {
        List<String> names = nodes.length == 0 ? List.of("node-1") : List.of(nodes);
        return new CoreHost<>(new KubeProxy(names, Optional.of(timing)), true);
    }

    private static Instant ms(long millis) {
        return T0.plusMillis(millis);
    }

    private final List<Event> emitted = new ArrayList<>();

    private List<Event> deliver(Event fact, Instant at) {
        emitted.clear();
        proxy.handle(fact.at(at), at, (input, effects, heldBack) -> emitted.addAll(effects.events()));
        return List.copyOf(emitted);
    }

    private List<Event> advanceTo(Instant t) {
        emitted.clear();
        proxy.advanceTo(t, (input, effects, heldBack) -> emitted.addAll(effects.events()));
        return List.copyOf(emitted);
    }

    private static List<Instant> times(List<Event> events) {
        return events.stream().map(Event::time).toList();
    }

    private static ServiceRules rules(Event synced) {
        assertEquals(EventTypes.PROXY_RULES_SYNCED, synced.type());
        return synced.data(ServiceRules.class);
    }

    private static List<String> ips(ServiceRules rules) {
        return rules.endpoints().stream().map(RuleEndpoint::ip).toList();
    }

    private Event service(String name, String clusterIP, String type, String internalTrafficPolicy) {
        ObjectNode service = object("v1", "Service", name);
        ObjectNode spec = service.putObject("spec").put("type", type);
        if (!clusterIP.isEmpty()) {
            spec.put("clusterIP", clusterIP);
        }
        if (internalTrafficPolicy != null) {
            spec.put("internalTrafficPolicy", internalTrafficPolicy);
        }
        return fact(EventTypes.OBJECT_CREATED, "services", service);
    }

    /** An EndpointSlice of {@code service} as the EndpointSlice controller writes it (discovery.k8s.io/v1). */
    private Event slice(String name, String service, ObjectNode... endpoints) {
        ObjectNode slice = object("discovery.k8s.io/v1", "EndpointSlice", name);
        ((ObjectNode) slice.get("metadata")).putObject("labels").put(EndpointSliceCache.SERVICE_NAME_LABEL, service);
        slice.put("addressType", "IPv4");
        ArrayNode list = slice.putArray("endpoints");
        for (ObjectNode e : endpoints) {
            list.add(e);
        }
        slice.putArray("ports")
                .addObject()
                .put("name", "http")
                .put("port", 8080)
                .put("protocol", "TCP");
        return fact(EventTypes.OBJECT_UPDATED, "endpointslices", slice);
    }

    private static ObjectNode ready(String ip, String pod, String node) {
        return endpoint(ip, pod, node, true, true, false);
    }

    private static ObjectNode endpoint(
            String ip, String pod, String node, boolean ready, boolean serving, boolean terminating) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        e.putArray("addresses").add(ip);
        e.putObject("conditions").put("ready", ready).put("serving", serving).put("terminating", terminating);
        e.put("nodeName", node);
        e.putObject("targetRef")
                .put("kind", "Pod")
                .put("namespace", "default")
                .put("name", pod)
                .put("uid", "uid-" + pod);
        return e;
    }

    private ObjectNode object(String apiVersion, String kind, String name) {
        ObjectNode o =
                Json.MAPPER.createObjectNode().put("apiVersion", apiVersion).put("kind", kind);
        o.putObject("metadata")
                .put("namespace", "default")
                .put("name", name)
                .put("uid", "uid-" + name)
                .put("resourceVersion", Long.toString(++resourceVersion));
        return o;
    }

    private Event fact(String type, String resource, ObjectNode object) {
        ObjectNode data = Json.MAPPER.createObjectNode().put("resource", resource);
        data.set("object", object);
        String name = object.path("metadata").path("name").asText();
        return Event.request(
                "fact-" + ++facts, "/apiserver", type, Subjects.of("default", resource, name), T0, null, data);
    }

    /** The object of {@code fact} left the API server, as the next write. */
    private Event removed(Event fact) {
        ObjectNode object = (ObjectNode) fact.data().get("object").deepCopy();
        ((ObjectNode) object.get("metadata")).put("resourceVersion", Long.toString(++resourceVersion));
        return fact(EventTypes.OBJECT_REMOVED, fact.data().path("resource").asText(), object);
    }

    private Event host(String type, String node) {
        return Event.request(
                "host-" + ++facts, "/host/" + node, type, "nodes/" + node, T0, null, new NodeMachine(node, null));
    }
}
