package io.podfall.controller.podgc;

import static io.podfall.controller.testing.ApiServerFacts.T0;
import static io.podfall.controller.testing.Nodes.aNode;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.controller.testing.ApiServerFacts;
import io.podfall.model.apiserver.DeletionRequest;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodGCControllerTest {
    private static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";

    private PodGCController controller = new PodGCController();
    private PodGCState state = controller.newState();
    private final ApiServerFacts api = new ApiServerFacts();
    /** The timer of the next pass. */
    private Timer next;

    private Effects handle(Event event) {
        Effects effects = controller.handle(state, event, event.time());
        if (!effects.timers().isEmpty()) {
            next = effects.timers().get(0);
        }
        return effects;
    }

    /** The next pass; returns what it asked, as {@code <verb> <pod>}. */
    private List<String> pass() {
        Effects effects = controller.fire(state, next, next.at());
        assertEquals(1, effects.timers().size(), "each pass sets the next");
        assertEquals(next.at().plusSeconds(20), effects.timers().get(0).at(), "gcCheckPeriod");
        next = effects.timers().get(0);
        lastPass = effects.events();
        List<String> out = new ArrayList<>();
        for (Event e : effects.events()) {
            String pod = e.subject().substring(e.subject().lastIndexOf('/') + 1);
            out.add(e.is(EventTypes.PATCH_REQUESTED) ? "fail " + pod : "delete " + pod);
        }
        return out;
    }

    private List<Event> lastPass;

    private static Pod terminated(String name, String phase, Instant created) {
        return new PodBuilder(aPod(name).onNode("node-1").inPhase(phase).build())
                .editMetadata()
                .withCreationTimestamp(created.toString())
                .endMetadata()
                .build();
    }

    @Test
    void passesComeEveryTwentySecondsOnWholeMultiples() {
        handle(api.at(T0.plusSeconds(7)).created(aNode("node-1").build()));

        assertEquals(T0.plusSeconds(20), next.at());
        assertEquals(List.of(), pass());
    }

    @Test
    void terminatedPodsOverTheThresholdAreForceDeletedEvictedFirstThenOldest() {
        controller = new PodGCController(2);
        state = controller.newState();
        handle(api.created(aNode("node-1").build()));
        handle(api.created(ResourceType.PODS, terminated("old", "Succeeded", T0.minusSeconds(30))));
        handle(api.created(ResourceType.PODS, terminated("b-new", "Failed", T0.minusSeconds(10))));
        handle(api.created(ResourceType.PODS, terminated("a-new", "Succeeded", T0.minusSeconds(10))));
        Pod evicted = new PodBuilder(terminated("evicted", "Failed", T0))
                .editStatus()
                .withReason("Evicted")
                .endStatus()
                .build();
        handle(api.created(ResourceType.PODS, evicted));
        handle(api.created(
                ResourceType.PODS,
                aPod("running").onNode("node-1").inPhase("Running").build()));

        assertEquals(List.of("delete evicted", "delete old"), pass(), "4 terminated, threshold 2; terminal: no patch");
        DeletionRequest delete = lastPass.get(0).data(DeletionRequest.class);
        assertEquals(0L, delete.options().getGracePeriodSeconds());
    }

    @Test
    void terminatingPodsOnANodeThatIsNotReadyAndOutOfServiceAreMadeFailedAndForceDeleted() {
        handle(api.created(aNode("node-1").notReady().build()));
        handle(api.created(
                ResourceType.PODS,
                aPod("web-1")
                        .onNode("node-1")
                        .inPhase("Running")
                        .terminating(T0, 30)
                        .withUid("uid-1")
                        .build()));
        handle(api.created(
                ResourceType.PODS,
                aPod("web-2").onNode("node-1").inPhase("Running").build()));
        assertEquals(List.of(), pass(), "no out-of-service taint: the kubelet may come back");

        handle(api.updated(
                ResourceType.NODES,
                aNode("node-1").notReady().tainted(OUT_OF_SERVICE, "NoExecute").build()));

        assertEquals(List.of("fail web-1", "delete web-1"), pass(), "web-2 is not terminating");
        PatchRequest patch = lastPass.get(0).data(PatchRequest.class);
        assertEquals(List.of("status", PatchRequest.STRATEGIC), List.of(patch.subresource(), patch.patchType()));
        assertEquals("uid-1", patch.patch().path("metadata").path("uid").asText());
        assertEquals("Failed", patch.patch().path("status").path("phase").asText());
        assertEquals(false, patch.patch().path("status").has("conditions"), "upstream gives this rule no condition");
    }

    @Test
    void aReadyNodeWithTheOutOfServiceTaintLosesNoPod() {
        handle(api.created(aNode("node-1").tainted(OUT_OF_SERVICE, "NoExecute").build()));
        handle(api.created(
                ResourceType.PODS,
                aPod("web-1")
                        .onNode("node-1")
                        .inPhase("Running")
                        .terminating(T0, 30)
                        .build()));

        assertEquals(List.of(), pass());
    }

    @Test
    void thePodsOfANodeThatIsGoneAreForceDeletedWithTheConditionAfterTheQuarantine() {
        handle(api.created(aNode("node-1").build()));
        handle(api.created(
                ResourceType.PODS,
                aPod("web-1").onNode("node-1").inPhase("Running").build()));
        handle(api.at(T0.plusSeconds(5)).removed(aNode("node-1").build()));

        assertEquals(List.of(), pass(), "20 s: quarantined until 60 s");
        assertEquals(List.of(), pass(), "40 s");
        assertEquals(List.of("fail web-1", "delete web-1"), pass(), "60 s: the quarantine is over");
        JsonNode condition = lastPass.get(0)
                .data(PatchRequest.class)
                .patch()
                .path("status")
                .path("conditions")
                .get(0);
        assertEquals("DisruptionTarget", condition.path("type").asText());
        assertEquals("DeletionByPodGC", condition.path("reason").asText());
        assertEquals("PodGC: node no longer exists", condition.path("message").asText());
    }

    @Test
    void aNodeThatComesBackDuringItsQuarantineKeepsItsPods() {
        handle(api.created(
                ResourceType.PODS,
                aPod("web-1").onNode("node-1").inPhase("Running").build()));
        assertEquals(List.of(), pass());
        handle(api.at(T0.plusSeconds(30)).created(aNode("node-1").build()));

        assertEquals(List.of(), pass());
        assertEquals(List.of(), pass());
    }

    @Test
    void aTerminatingPodThatWasNeverScheduledIsForceDeleted() {
        handle(api.created(
                ResourceType.PODS,
                aPod("web-1").inPhase("Pending").terminating(T0, 30).build()));
        handle(api.created(ResourceType.PODS, aPod("web-2").inPhase("Pending").build()));

        assertEquals(List.of("fail web-1", "delete web-1"), pass());
    }
}
