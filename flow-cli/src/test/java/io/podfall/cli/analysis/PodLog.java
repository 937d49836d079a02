package io.podfall.cli.analysis;

import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Synthetic logs for the analysis tests: one pod's creation and deletion, event by event, at explicit times in
 * milliseconds after {@link #T0}. Each event is caused by the one before it in its flow.
 */
public final class PodLog {
    public static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

    public final String namespace;
    public final String name;
    public final String node;
    public final String ip;
    public final String subject;
    public final String uid;
    public final String sandbox;
    public final String container;
    public final List<Event> events = new ArrayList<>();
    private Event last;
    private Event request;
    private int seq;

    private final String kubelet;
    private final String runtime;

    /** Pod {@code default/NAME} on node-1, IP 10.244.1.2. */
    public PodLog(String name) {
        this("default", name, "node-1", "10.244.1.2");
    }

    public PodLog(String namespace, String name, String node, String ip) {
        this.namespace = namespace;
        this.name = name;
        this.node = node;
        this.ip = ip;
        this.kubelet = "/kubelet/" + node;
        this.runtime = "/runtime/" + node;
        this.subject = Subjects.of(namespace, "pods", name);
        this.uid = "uid-" + name;
        this.sandbox = "sb-" + name;
        this.container = "ctr-" + name;
    }

    public static Map<String, Object> data(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    public static Instant at(long ms) {
        return T0.plusMillis(ms);
    }

    /** Starts a flow with a request from outside at {@code ms}. */
    public Event request(String id, long ms, String type, Map<String, Object> data) {
        request = asRead(Event.request(id, "/apiserver", type, subject, at(ms), null, data));
        last = request;
        events.add(request);
        return request;
    }

    /** The next event of the current flow, caused by the previous one. */
    public Event then(long ms, String source, String type, Map<String, Object> data) {
        last = asRead(Event.causedBy(last.asCause(), request.id(), seq++, source, type, subject, at(ms), data));
        events.add(last);
        return last;
    }

    /** Created at {@code ms}: the sandbox gets its IP, the container runs 100 ms later. */
    public PodLog created(long ms) {
        request("create-" + name, ms, EventTypes.CREATION_REQUESTED, data("resource", "pods", "namespace", namespace));
        then(ms + 50, runtime, EventTypes.POD_IP_ALLOCATED, sandbox());
        then(ms + 100, runtime, EventTypes.CONTAINER_STARTED, container());
        return this;
    }

    /** A client's delete with a grace period at {@code ms}; its id is "del-NAME". */
    public Event delete(long ms, long grace) {
        return request(
                "del-" + name,
                ms,
                EventTypes.DELETION_REQUESTED,
                data(
                        "resource",
                        "pods",
                        "namespace",
                        namespace,
                        "name",
                        name,
                        "options",
                        data("gracePeriodSeconds", grace)));
    }

    /** CRI RunPodSandbox with the pod's annotations, which tell the runtime how its processes behave. */
    public Event sandboxRequested(long ms, Map<String, String> annotations) {
        return then(
                ms,
                kubelet,
                EventTypes.RUN_POD_SANDBOX_REQUESTED,
                data("node", node, "podUid", uid, "namespace", namespace, "name", name, "annotations", annotations));
    }

    /** The whole pod as the API server stores it: its spec's grace period, its annotations, its container app. */
    public Event stored(long ms, String type, long specGrace, Map<String, String> annotations) {
        return then(
                ms,
                "/apiserver",
                type,
                data(
                        "resource",
                        "pods",
                        "object",
                        data(
                                "metadata",
                                        data(
                                                "uid",
                                                uid,
                                                "namespace",
                                                namespace,
                                                "name",
                                                name,
                                                "annotations",
                                                annotations),
                                "spec",
                                        data(
                                                "nodeName",
                                                node,
                                                "terminationGracePeriodSeconds",
                                                specGrace,
                                                "containers",
                                                List.of(data("name", "app", "image", "nginx"))))));
    }

    /**
     * The endpoints controller's answer to the pod's {@code marked}: its patch of Endpoints {@code default/web} at
     * {@code patchMs} and the API server's update at {@code updatedMs}, in the marking's flow; not added to the log.
     */
    public static List<Event> endpointsPatched(Event marked, long patchMs, long updatedMs) {
        Event patch = Event.causedBy(
                marked.asCause(),
                marked.correlationId(),
                90,
                "/controller/endpoint",
                EventTypes.PATCH_REQUESTED,
                "namespaces/default/endpoints/web",
                at(patchMs),
                Map.of());
        Event updated = Event.causedBy(
                patch.asCause(),
                marked.correlationId(),
                91,
                "/apiserver",
                EventTypes.OBJECT_UPDATED,
                "namespaces/default/endpoints/web",
                at(updatedMs),
                Map.of());
        return List.of(patch, updated);
    }

    public Event graceShortened(long ms, long previous, long grace, String compat) {
        Map<String, Object> d = data(
                "node",
                node,
                "podUid",
                uid,
                "namespace",
                namespace,
                "name",
                name,
                "previousGracePeriodSeconds",
                previous,
                "gracePeriodSeconds",
                grace);
        d.put("compat", compat);
        return then(ms, kubelet, EventTypes.GRACE_PERIOD_SHORTENED, d);
    }

    public Event markedTerminating(long ms, long grace) {
        return marking(ms, grace, at(ms).plusSeconds(grace), "Running");
    }

    /**
     * The API server's write of the kubelet's final delete before the removal: grace 0, the deadline moved back by the
     * whole grace period to the moment the pod was marked ({@code markedMs}).
     */
    public Event shortenedToZero(long ms, long markedMs, String phase) {
        return marking(ms, 0, at(markedMs), phase);
    }

    private Event marking(long ms, long grace, Instant deadline, String phase) {
        return then(
                ms,
                "/apiserver",
                EventTypes.OBJECT_MARKED_TERMINATING,
                data(
                        "resource",
                        "pods",
                        "object",
                        data(
                                "metadata",
                                data(
                                        "uid",
                                        uid,
                                        "deletionGracePeriodSeconds",
                                        grace,
                                        "deletionTimestamp",
                                        deadline.toString()),
                                "status",
                                data("phase", phase))));
    }

    public Event terminationStarted(long ms, long grace) {
        return then(
                ms,
                kubelet,
                EventTypes.POD_TERMINATION_STARTED,
                data(
                        "node",
                        node,
                        "podUid",
                        uid,
                        "namespace",
                        namespace,
                        "name",
                        name,
                        "gracePeriodSeconds",
                        grace,
                        "deadline",
                        at(ms).plusSeconds(grace).toString()));
    }

    public Event stopRequested(long ms, long timeout) {
        return then(
                ms,
                kubelet,
                EventTypes.STOP_CONTAINER_REQUESTED,
                data(
                        "node",
                        node,
                        "podUid",
                        uid,
                        "containerId",
                        container,
                        "containerName",
                        "app",
                        "timeoutSeconds",
                        timeout));
    }

    public Event signalled(long ms, String signal) {
        return then(
                ms,
                runtime,
                EventTypes.CONTAINER_SIGNALLED,
                data("node", node, "podUid", uid, "containerId", container, "containerName", "app", "signal", signal));
    }

    public Event exited(long ms, int code) {
        Map<String, Object> d = container();
        d.put("state", "EXITED");
        d.put("exitCode", code);
        d.put("reason", "Error");
        return then(ms, runtime, EventTypes.CONTAINER_EXITED, d);
    }

    public Event ipReleased(long ms) {
        return then(ms, runtime, EventTypes.POD_IP_RELEASED, sandbox());
    }

    public Event sandboxStopped(long ms) {
        return then(ms, runtime, EventTypes.SANDBOX_STOPPED, sandbox());
    }

    public Event removed(long ms) {
        return then(
                ms,
                "/apiserver",
                EventTypes.OBJECT_REMOVED,
                data(
                        "resource",
                        "pods",
                        "object",
                        data("metadata", data("uid", uid), "status", data("phase", "Failed"))));
    }

    /**
     * The whole graceful deletion at {@code start}, in the steps of the suite's (README): terminating +17, kubelet +51,
     * SIGTERM +76, exit after {@code exitMs} more (or SIGKILL at the deadline when the process ignores SIGTERM),
     * sandbox stopped +36 later, removed +89 after that, sandbox removed +45 after that.
     */
    public PodLog deleted(long start, long grace, long exitMs, boolean ignoresSigterm) {
        delete(start, grace);
        return terminates(start, grace, exitMs, ignoresSigterm);
    }

    /**
     * The garbage collector's delete of the pod at {@code start}, caused by {@code cause} (its owner's step) in the
     * cause's flow, and the graceful deletion that follows as in {@link #deleted}.
     */
    public PodLog deletedInCascade(Event cause, long start, long grace, long exitMs, boolean ignoresSigterm) {
        request = asRead(Event.causedBy(
                cause.asCause(),
                "gc-" + name,
                0,
                "/controller/garbagecollector",
                EventTypes.DELETION_REQUESTED,
                subject,
                at(start),
                data(
                        "resource",
                        "pods",
                        "namespace",
                        namespace,
                        "name",
                        name,
                        "options",
                        data("propagationPolicy", "Foreground"))));
        last = request;
        events.add(request);
        return terminates(start, grace, exitMs, ignoresSigterm);
    }

    /** What follows a delete at {@code start}, as {@link #deleted} describes it. */
    private PodLog terminates(long start, long grace, long exitMs, boolean ignoresSigterm) {
        markedTerminating(start + 17, grace);
        terminationStarted(start + 51, grace);
        stopRequested(start + 51, grace);
        signalled(start + 76, "SIGTERM");
        long exit;
        if (ignoresSigterm) {
            exit = start + 51 + grace * 1000 + 25;
            signalled(exit, "SIGKILL");
            exited(exit, 137);
        } else {
            exit = start + 76 + exitMs;
            exited(exit, 143);
        }
        then(exit + 22, kubelet, EventTypes.STOP_POD_SANDBOX_REQUESTED, data("node", node, "podUid", uid));
        ipReleased(exit + 36);
        sandboxStopped(exit + 36);
        then(
                exit + 72,
                kubelet,
                EventTypes.POD_TERMINATED,
                data("node", node, "podUid", uid, "gracePeriodSeconds", grace));
        then(
                exit + 72,
                kubelet,
                EventTypes.STATUS_UPDATE_REQUESTED,
                data(
                        "namespace",
                        namespace,
                        "name",
                        name,
                        "uid",
                        uid,
                        "status",
                        data("phase", ignoresSigterm ? "Failed" : "Succeeded")));
        then(
                exit + 72,
                "/apiserver",
                EventTypes.POD_STATUS_UPDATED,
                data(
                        "resource",
                        "pods",
                        "object",
                        data(
                                "metadata",
                                data("uid", uid),
                                "status",
                                data("phase", ignoresSigterm ? "Failed" : "Succeeded"))));
        then(
                exit + 72,
                kubelet,
                EventTypes.DELETION_REQUESTED,
                data(
                        "resource",
                        "pods",
                        "namespace",
                        namespace,
                        "name",
                        name,
                        "options",
                        data("gracePeriodSeconds", 0, "preconditions", data("uid", uid))));
        shortenedToZero(exit + 125, start + 17, ignoresSigterm ? "Failed" : "Succeeded");
        removed(exit + 125);
        then(exit + 140, kubelet, EventTypes.REMOVE_POD_SANDBOX_REQUESTED, data("node", node, "podUid", uid));
        Map<String, Object> gone = container();
        gone.put("state", "EXITED");
        then(exit + 160, runtime, EventTypes.CONTAINER_REMOVED, gone);
        then(exit + 170, runtime, EventTypes.SANDBOX_REMOVED, sandbox());
        return this;
    }

    /** The event as a reader gets it: its data parsed from JSON, so numbers are the nodes a parser makes. */
    private static Event asRead(Event e) {
        return new Event(
                e.id(),
                e.source(),
                e.type(),
                e.subject(),
                e.time(),
                e.correlationId(),
                e.causationId(),
                e.traceparent(),
                Json.read(Json.bytes(e.data())));
    }

    private Map<String, Object> sandbox() {
        return data("node", node, "podUid", uid, "sandboxId", sandbox, "ip", ip);
    }

    private Map<String, Object> container() {
        return data(
                "node",
                node,
                "podUid",
                uid,
                "containerId",
                container,
                "containerName",
                "app",
                "image",
                "nginx",
                "state",
                "RUNNING");
    }
}
