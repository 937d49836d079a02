package io.podfall.replay;

import static io.podfall.model.event.EventTypes.CONTAINER_EXITED;
import static io.podfall.model.event.EventTypes.CONTAINER_SIGNALLED;
import static io.podfall.model.event.EventTypes.SANDBOX_REMOVED;
import static io.podfall.model.event.EventTypes.START_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static io.podfall.model.testing.Pods.aPod;
import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A pod with sidecars through the four cores on the engine: started in order, stopped in reverse. */
class SidecarsTest {

    private static Engine run(String onSigterm, String exitDelay, long grace) {
        var pod = aPod("web")
                .withGrace(30)
                .withInitContainer("setup")
                .withSidecar("proxy")
                .withSidecar("log")
                .withAnnotation("podfall.io/on-sigterm", onSigterm)
                .withAnnotation("podfall.io/exit-delay-seconds", exitDelay)
                .withAnnotation("podfall.io/init-run-seconds", "1")
                .build();
        return Scenarios.run(
                Scenarios.node1(),
                List.of(
                        new Input.ApiServerStart(T0),
                        new Input.KubeletStart(0, T0),
                        Scenarios.create(1, T0.plusSeconds(1), pod),
                        Scenarios.delete(2, T0.plusSeconds(20), "web", grace)));
    }

    private static List<String> containers(Engine engine, String type) {
        return engine.log().stream()
                .filter(e -> e.is(type) && e.subject().equals("namespaces/default/pods/web"))
                .filter(e -> !type.equals(CONTAINER_SIGNALLED)
                        || !"SIGKILL".equals(e.data().path("signal").asText()))
                .map(e -> e.data().path("containerName").asText())
                .toList();
    }

    @Test
    void initContainersStartInOrderAndSidecarsStopAfterTheMainContainerInReverse() {
        Engine engine = run("exit", "1", 30);

        assertEquals(List.of("setup", "proxy", "log", "app"), containers(engine, START_CONTAINER_REQUESTED));
        assertEquals(List.of("app", "log", "proxy"), containers(engine, STOP_CONTAINER_REQUESTED));
        assertEquals(List.of("setup", "app", "log", "proxy"), containers(engine, CONTAINER_EXITED));
        assertTrue(engine.log().stream().anyMatch(e -> e.is(SANDBOX_REMOVED)), "the pod went the whole way");
    }

    @Test
    void sidecarsOfAPodThatIgnoresSigtermAreStoppedAtTheDeadlineWithTheMinimum() {
        Engine engine = run("ignore", "0", 5);

        List<Event> stops = engine.log().stream()
                .filter(e -> e.is(STOP_CONTAINER_REQUESTED))
                .toList();
        assertEquals(
                List.of("app=5", "log=2", "proxy=2"),
                stops.stream()
                        .map(e -> e.data().path("containerName").asText() + "="
                                + e.data().path("timeoutSeconds").asLong())
                        .toList());
        assertEquals(
                stops.get(0).time().plusSeconds(5), stops.get(1).time(), "the sidecars waited out the grace period");
    }

    @Test
    void twoRunsAppendTheSameLog() {
        assertEquals(
                bytes(run("exit", "1", 30).log()), bytes(run("exit", "1", 30).log()));
    }

    /** The log as the topic would hold it: every record's headers and value. */
    private static String bytes(List<Event> log) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Event e : log) {
            for (Map.Entry<String, byte[]> h : EventCodec.headers(e)) {
                out.writeBytes(h.getKey().getBytes(StandardCharsets.UTF_8));
                out.writeBytes(h.getValue());
            }
            out.writeBytes(EventCodec.value(e));
            out.write('\n');
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
