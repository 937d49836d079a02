package io.podfall.replay;

import static io.podfall.model.testing.Pods.aPod;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.podfall.apiserver.registry.Registry;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.host.NodeMachine;
import java.time.Instant;
import java.util.List;

/**
 * Inputs as the suite's front doors write them: the services' starts, and client requests with random (version 4) ids
 * and no cause, as the API server's RequestTracker appends them.
 */
final class Scenarios {
    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private Scenarios() {}

    /** A kubelet of node-1 without compatibility switches. */
    static List<Engine.KubeletSettings> node1() {
        return List.of(new Engine.KubeletSettings(List.of("node-1"), Compat.NONE));
    }

    /** The suite's start, then two pods created, then deleted with a grace period of 5 s at {@code T0 + 10 s}. */
    static List<Input> twoPodsDeleted() {
        return List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0.plusMillis(40)),
                create(1, T0.plusSeconds(2), "graceful", "podfall.io/exit-delay-seconds", "0.5"),
                create(2, T0.plusSeconds(3), "stubborn", "podfall.io/on-sigterm", "ignore"),
                delete(3, T0.plusSeconds(10), "graceful", 5),
                delete(4, T0.plusSeconds(10).plusMillis(1), "stubborn", 5));
    }

    /**
     * The seed scenario (upstream #83916, #113712): a pod that ignores SIGTERM deleted with 60 s of grace at {@code T0
     * + 10 s}, then again with 5 s a second later, which shortens the grace period while it terminates.
     */
    static List<Input> graceShortened() {
        return List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0),
                create(1, T0.plusSeconds(1), "stubborn", "podfall.io/on-sigterm", "ignore"),
                delete(2, T0.plusSeconds(10), "stubborn", 60),
                delete(3, T0.plusSeconds(11), "stubborn", 5));
    }

    /**
     * A pod behind no Service whose liveness probe fails 3.5 s after each start (between two of its runs: a recording
     * stretched by its hops must not move a failure across a run) (killed with the probe's 2 s: its process ignores
     * SIGTERM) and whose readiness fails from SIGTERM on, so it crash-loops; deleted with 5 s at {@code T0 + 30 s}.
     */
    static List<Input> probedPodCrashLoopsThenIsDeleted() {
        Probe probe = new ProbeBuilder()
                .withNewExec()
                .withCommand("true")
                .endExec()
                .withPeriodSeconds(1)
                .withFailureThreshold(1)
                .build();
        Pod pod = new PodBuilder(aPod("probed")
                        .withAnnotation("podfall.io/on-sigterm", "ignore")
                        .withAnnotation("podfall.io/unready-on-sigterm", "true")
                        .withAnnotation("podfall.io/liveness-fails-after-seconds", "3.5")
                        .build())
                .editSpec()
                .editFirstContainer()
                .withReadinessProbe(probe)
                .withLivenessProbe(new ProbeBuilder(probe)
                        .withTerminationGracePeriodSeconds(2L)
                        .build())
                .endContainer()
                .endSpec()
                .build();
        return List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0.plusMillis(40)),
                request(
                        1,
                        T0.plusSeconds(2),
                        EventTypes.CREATION_REQUESTED,
                        pod("probed"),
                        new CreationRequest("pods", "default", Json.tree(pod))),
                delete(2, T0.plusSeconds(30), "probed", 5));
    }

    /**
     * Three pods running on node-1, whose machine stops at {@code T0 + 5 s}: {@code graceful} is deleted with 5 s of
     * grace while it is away, {@code forced} force-deleted, {@code kept} left alone; the node starts again at {@code T0
     * + 60 s}, past the node monitor's grace period (40 s), so its Node was marked Unknown meanwhile.
     */
    static List<Input> nodeStoppedAndStarted() {
        return List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0.plusMillis(40)),
                create(1, T0.plusSeconds(1), "graceful", "podfall.io/exit-delay-seconds", "0.5"),
                create(2, T0.plusSeconds(1).plusMillis(1), "forced", "podfall.io/on-sigterm", "ignore"),
                create(3, T0.plusSeconds(1).plusMillis(2), "kept", "podfall.io/on-sigterm", "ignore"),
                host(4, T0.plusSeconds(5), EventTypes.NODE_STOPPED),
                delete(5, T0.plusSeconds(10), "graceful", 5),
                delete(6, T0.plusSeconds(11), "forced", 0),
                host(7, T0.plusSeconds(60), EventTypes.NODE_STARTED));
    }

    /** node-1's machine stops or starts ({@code podfall node stop|start}). */
    static Input host(int n, Instant at, String type) {
        return new Input.Request(Event.request(
                String.format("00000000-0000-4000-8000-%012d", n),
                "/host/node-1",
                type,
                Subjects.of("", "nodes", "node-1"),
                at,
                null,
                new NodeMachine("node-1", "maintenance")));
    }

    static Input create(int n, Instant at, String pod, String annotation, String value) {
        return request(
                n,
                at,
                EventTypes.CREATION_REQUESTED,
                pod(pod),
                new CreationRequest(
                        "pods",
                        "default",
                        Json.tree(aPod(pod).withAnnotation(annotation, value).build())));
    }

    static Input create(int n, Instant at, io.fabric8.kubernetes.api.model.Pod pod) {
        return request(
                n,
                at,
                EventTypes.CREATION_REQUESTED,
                pod(pod.getMetadata().getName()),
                new CreationRequest("pods", "default", Json.tree(pod)));
    }

    static Input delete(int n, Instant at, String pod, long grace) {
        return request(
                n,
                at,
                EventTypes.DELETION_REQUESTED,
                pod(pod),
                new DeletionRequest(
                        "pods",
                        "default",
                        pod,
                        new DeleteOptionsBuilder().withGracePeriodSeconds(grace).build()));
    }

    /**
     * The suite's start with pod {@code web} running in {@code default}, then the incident: namespace {@code incident}
     * created at {@code T0 + 20 s}, pod {@code victim} in it a second later, deleted with 5 s of grace at {@code T0 +
     * 30 s}; {@code web} is deleted meanwhile, at {@code T0 + 32 s}.
     */
    static List<Input> podDeletedInANamespaceOfItsOwn() {
        ObjectNode namespace =
                Json.MAPPER.createObjectNode().put("apiVersion", "v1").put("kind", "Namespace");
        namespace.putObject("metadata").put("name", "incident");
        return List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0.plusMillis(40)),
                create(1, T0.plusSeconds(2), "web", "podfall.io/exit-delay-seconds", "0.5"),
                request(
                        2,
                        T0.plusSeconds(20),
                        EventTypes.CREATION_REQUESTED,
                        "namespaces/incident",
                        new CreationRequest("namespaces", "", namespace)),
                request(
                        3,
                        T0.plusSeconds(21),
                        EventTypes.CREATION_REQUESTED,
                        "namespaces/incident/pods/victim",
                        new CreationRequest(
                                "pods",
                                "incident",
                                Json.tree(aPod("victim")
                                        .inNamespace("incident")
                                        .withAnnotation("podfall.io/exit-delay-seconds", "1")
                                        .build()))),
                request(
                        4,
                        T0.plusSeconds(30),
                        EventTypes.DELETION_REQUESTED,
                        "namespaces/incident/pods/victim",
                        new DeletionRequest(
                                "pods",
                                "incident",
                                "victim",
                                new DeleteOptionsBuilder()
                                        .withGracePeriodSeconds(5L)
                                        .build())),
                delete(5, T0.plusSeconds(32), "web", 5));
    }

    /** A merge patch that declares (or, with null, ends) node-1's pressure of a resource (EvictionManager). */
    static Input pressure(int n, Instant at, String resource) {
        return request(
                n,
                at,
                EventTypes.PATCH_REQUESTED,
                "nodes/node-1",
                new PatchRequest(
                        "nodes",
                        null,
                        "node-1",
                        null,
                        PatchRequest.MERGE,
                        Json.MAPPER
                                .createObjectNode()
                                .set(
                                        "metadata",
                                        Json.MAPPER
                                                .createObjectNode()
                                                .set(
                                                        "annotations",
                                                        Json.MAPPER
                                                                .createObjectNode()
                                                                .put("podfall.io/pressure", resource)))));
    }

    static Input request(int n, Instant at, String type, String subject, Object data) {
        String id = String.format("00000000-0000-4000-8000-%012d", n);
        return new Input.Request(Event.request(id, Registry.SOURCE, type, subject, at, null, data));
    }

    private static String pod(String name) {
        return Subjects.of("default", "pods", name);
    }

    /** An engine that has run the inputs to the end of every timer they lead to. */
    static Engine run(List<Engine.KubeletSettings> kubelets, List<Input> inputs) {
        Engine engine = new Engine(kubelets);
        engine.schedule(inputs);
        engine.runUntil(T0.plusSeconds(600));
        return engine;
    }
}
