package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** What the end-to-end tests do to pods in the default namespace, over HTTP, and read back from the topic. */
final class SuiteClient {
    private static final String PODS = "/api/v1/namespaces/default/pods";

    final ApiClient api;
    private final Suite suite;
    private final String topic;

    /** For the shared suite of {@link SuiteExtension}. */
    SuiteClient(Suite suite) {
        this(suite, SuiteExtension.TOPIC);
    }

    /** For a suite of a test's own, on its {@code topic}. */
    SuiteClient(Suite suite, String topic) {
        this.suite = suite;
        this.topic = topic;
        this.api = new ApiClient(suite.apiserverUrl());
    }

    /** Waits until the pod runs; returns it as the API server then serves it. */
    JsonNode awaitRunning(String name) {
        return api.await(
                        PODS + "/" + name,
                        r -> r.code() == 200
                                && "Running"
                                        .equals(r.body()
                                                .path("status")
                                                .path("phase")
                                                .asText()),
                        Duration.ofSeconds(60),
                        name + " Running")
                .body();
    }

    void createRunning(Pod pod) {
        assertEquals(201, api.post(PODS, pod).code());
        awaitRunning(pod.getMetadata().getName());
    }

    void delete(String name, long grace) {
        assertEquals(
                200,
                api.delete(
                                PODS + "/" + name,
                                new DeleteOptionsBuilder()
                                        .withGracePeriodSeconds(grace)
                                        .build())
                        .code());
    }

    /** The pod's events, read from the topic until one of type {@code until} is there (or the timeout passed). */
    List<Event> eventsOf(String name, String until, Duration timeout) {
        String subject = Subjects.of("default", "pods", name);
        try (EventLog log = new EventLog(suite.bootstrapServers(), topic)) {
            return log
                    .readUntil(all -> all.stream().anyMatch(e -> e.is(until) && subject.equals(e.subject())), timeout)
                    .stream()
                    .filter(e -> subject.equals(e.subject()))
                    .toList();
        }
    }

    /** The pod's events on the topic now. */
    List<Event> eventsOf(String name) {
        String subject = Subjects.of("default", "pods", name);
        try (EventLog log = new EventLog(suite.bootstrapServers(), topic)) {
            return log.readToEnd(Duration.ofSeconds(10)).stream()
                    .filter(e -> subject.equals(e.subject()))
                    .toList();
        }
    }

    /** The topic's events, read until {@code done} holds of them, which is asserted (two minutes at most). */
    List<Event> awaitLog(Predicate<List<Event>> done, String what) {
        try (EventLog log = new EventLog(suite.bootstrapServers(), topic)) {
            List<Event> events = log.readUntil(done, Duration.ofSeconds(120));
            assertTrue(done.test(events), what);
            return events;
        }
    }

    /** Events of a type from a source. */
    static Predicate<Event> from(String source, String type) {
        return e -> e.source().equals(source) && e.is(type);
    }

    /** The first event of a type among the events (of a signal, for ContainerSignalled, unless null). */
    static Event first(List<Event> events, String type, String signal) {
        return events.stream()
                .filter(e -> e.is(type)
                        && (signal == null
                                || signal.equals(e.data().path("signal").asText())))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type + " " + (signal == null ? "" : signal)));
    }

    /** Whole seconds from one event to another, by their times. */
    static long seconds(Event from, Event to) {
        return Duration.between(from.time(), to.time()).toSeconds();
    }

    /** An object's status condition of {@code type}, missing if it has none. */
    static JsonNode condition(JsonNode object, String type) {
        for (JsonNode c : object.path("status").path("conditions")) {
            if (type.equals(c.path("type").asText())) {
                return c;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    /** Whether a Node has a taint of {@code key} with {@code effect}. */
    static boolean hasTaint(JsonNode node, String key, String effect) {
        for (JsonNode t : node.path("spec").path("taints")) {
            if (key.equals(t.path("key").asText())
                    && effect.equals(t.path("effect").asText())) {
                return true;
            }
        }
        return false;
    }

    /** A pod of one container, {@code app} (nginx), in the default namespace, with these annotations. */
    static Pod pod(String name, Map<String, String> annotations) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }
}
