package io.podfall.replay;

import static io.podfall.replay.Scenarios.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.podfall.kubelet.nodestatus.NodeCapacity;
import io.podfall.kubelet.podworkers.Compat;
import io.podfall.kubelet.podworkers.KubeletTiming;
import io.podfall.model.event.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class RecordingTest {

    @Test
    void theInputsOfALogAreTheClientRequestsAndTheServicesStarts() {
        List<Input> inputs = Scenarios.twoPodsDeleted();
        Recording recording =
                Recording.of(Scenarios.run(Scenarios.node1(), inputs).log());

        assertEquals(inputs, recording.inputs(), "everything else on the log is an effect of these");
        assertEquals(Scenarios.node1(), recording.kubelets());
        assertEquals(List.of(), recording.notes());
    }

    @Test
    void nodesRegisteredAtOneInstantAreOneKubeletAndItsSwitchesAreThoseItsEventsName() {
        List<Engine.KubeletSettings> kubelets = List.of(
                new Engine.KubeletSettings(List.of("node-1", "node-2"), new Compat(false, true)),
                new Engine.KubeletSettings(List.of("node-3"), Compat.NONE));
        List<Input> inputs = List.of(
                new Input.ApiServerStart(T0),
                new Input.KubeletStart(0, T0.plusMillis(10)),
                new Input.KubeletStart(1, T0.plusMillis(20)),
                Scenarios.create(1, T0.plusSeconds(1), "stubborn", "podfall.io/on-sigterm", "ignore"),
                Scenarios.delete(2, T0.plusSeconds(10), "stubborn", 0));
        List<Event> log = Scenarios.run(kubelets, inputs).log();

        Recording recording = Recording.of(log);

        assertEquals(List.of("node-1", "node-2"), recording.kubelets().get(0).nodes());
        assertEquals(List.of("node-3"), recording.kubelets().get(1).nodes());
        // the scheduler puts the pod on node-1 (the least loaded, then by name), where the switch changed the kill
        assertEquals(
                List.of(new Compat(false, true), Compat.NONE),
                recording.kubelets().stream()
                        .map(Engine.KubeletSettings::compat)
                        .toList());
        assertEquals(inputs, recording.inputs());
    }

    @Test
    void eachNodeReplaysWithTheCapacityItRegisteredWith() {
        List<Engine.KubeletSettings> kubelets = List.of(new Engine.KubeletSettings(
                List.of("node-1", "node-2"),
                Compat.NONE,
                OptionalLong.empty(),
                KubeletTiming.FAST,
                NodeCapacity.DEFAULT.overriding("node-2", NodeCapacity.parse("cpu=500m,memory=1Gi"))));
        List<Event> log = Scenarios.run(kubelets, Scenarios.twoPodsDeleted()).log();

        Recording recording = Recording.of(log);

        assertEquals(kubelets, recording.kubelets());
        assertEquals(
                NodeCapacity.parse("cpu=500m,memory=1Gi,pods=110"),
                recording.kubelets().get(0).capacity().of("node-2"));
    }

    @Test
    void aNodeThatActsButWasNeverRegisteredOnTheLogGetsAKubeletAnyway() {
        List<Event> log = new ArrayList<>(
                Scenarios.run(Scenarios.node1(), Scenarios.twoPodsDeleted()).log());
        log.removeIf(e -> e.causationId() == null && e.subject().equals("nodes/node-1"));

        Recording recording = Recording.of(log);

        assertEquals(Scenarios.node1(), recording.kubelets());
        assertEquals(1, recording.notes().size(), recording.notes().toString());
    }
}
