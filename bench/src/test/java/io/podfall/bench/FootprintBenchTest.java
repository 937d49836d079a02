package io.podfall.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FootprintBenchTest {

    @Test
    void eachControllersStateIsMeasuredAndTheWholeCountsWhatTheyShareOnce() {
        Report report = FootprintBench.run(200, 2);

        assertTrue(report.correct(), report.text());
        JsonNode bytes = report.figures().path("bytes");
        List<String> controllers = new ArrayList<>();
        long sum = 0;
        for (var it = bytes.fields(); it.hasNext(); ) {
            var state = it.next();
            assertTrue(state.getValue().asLong() > 0, state.getKey() + " measured nothing");
            if (state.getKey().startsWith("controller-svc: ") && !state.getKey().endsWith("the whole")) {
                controllers.add(state.getKey());
                sum += state.getValue().asLong();
            }
        }
        assertEquals(
                List.of(
                        "controller-svc: SchedulerState",
                        "controller-svc: ReplicaSetState",
                        "controller-svc: DeploymentState",
                        "controller-svc: GarbageCollectorState",
                        "controller-svc: EndpointsControllerState",
                        "controller-svc: NamespaceControllerState",
                        "controller-svc: NodeLifecycleState",
                        "controller-svc: TaintEvictionState",
                        "controller-svc: PodGCState",
                        "controller-svc: DisruptionState"),
                controllers);
        long whole = bytes.path("controller-svc: the whole").asLong();
        assertTrue(whole < sum, "the pods' names and uids the controllers share count once: " + whole + " < " + sum);
        assertTrue(
                bytes.path("apiserver-svc: the registry").asLong() > 200 * 1_000L,
                "the registry holds each pod's JSON, over a kilobyte: " + bytes);
    }
}
