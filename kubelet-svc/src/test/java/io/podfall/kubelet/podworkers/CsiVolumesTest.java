package io.podfall.kubelet.podworkers;

import static io.podfall.kubelet.podworkers.KubeletDriver.NODE;
import static io.podfall.kubelet.podworkers.KubeletDriver.T0;
import static io.podfall.model.event.EventTypes.DELETION_REQUESTED;
import static io.podfall.model.event.EventTypes.NODE_PUBLISH_VOLUME_REQUESTED;
import static io.podfall.model.event.EventTypes.NODE_STAGE_VOLUME_REQUESTED;
import static io.podfall.model.event.EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED;
import static io.podfall.model.event.EventTypes.NODE_UNSTAGE_VOLUME_REQUESTED;
import static io.podfall.model.event.EventTypes.OBJECT_MARKED_TERMINATING;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static io.podfall.model.event.EventTypes.POD_BOUND;
import static io.podfall.model.event.EventTypes.POD_TERMINATED;
import static io.podfall.model.event.EventTypes.POD_TERMINATION_STARTED;
import static io.podfall.model.event.EventTypes.REMOVE_POD_SANDBOX_REQUESTED;
import static io.podfall.model.event.EventTypes.RUN_POD_SANDBOX_REQUESTED;
import static io.podfall.model.event.EventTypes.STATUS_UPDATE_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_CONTAINER_REQUESTED;
import static io.podfall.model.event.EventTypes.STOP_POD_SANDBOX_REQUESTED;
import static io.podfall.model.event.EventTypes.VOLUME_STAGED;
import static io.podfall.model.testing.Pods.aPod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.podfall.model.core.Effects;
import io.podfall.model.csi.NodePublishVolume;
import io.podfall.model.csi.PublishedVolume;
import io.podfall.model.csi.StagedVolume;
import io.podfall.model.event.Event;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The volume manager within the pod workers: a pod's CSI volumes are mounted before its sandbox and unmounted after it,
 * a claim is staged once per node and unstaged after its last pod, and the pod is terminated (final status, final
 * delete) only once its volumes are unpublished.
 */
class CsiVolumesTest {
    private final KubeletDriver kubelet = new KubeletDriver();

    /** A pod of the claim {@code pgdata} (volume {@code data}), with one container, app. */
    private static Pod withClaim(String name) {
        return aPod(name)
                .withUid("uid-" + name)
                .onNode(NODE)
                .withGrace(30)
                .withClaim("data", "pgdata")
                .build();
    }

    private static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    private static List<Event> requests(Effects effects, String type) {
        return effects.events().stream().filter(e -> e.is(type)).toList();
    }

    private static Event only(Effects effects, String type) {
        List<Event> all = requests(effects, type);
        assertEquals(1, all.size(), () -> "one " + type + " in " + types(effects));
        return all.get(0);
    }

    /** Binds the pod and answers every CSI request until its sandbox is asked for; then runs it. */
    private Pod mountedAndRunning(Pod pod) {
        Effects effects = kubelet.apiserver(POD_BOUND, pod);
        Deque<Event> pending = new ArrayDeque<>();
        while (requests(effects, RUN_POD_SANDBOX_REQUESTED).isEmpty()) {
            effects.events().stream().filter(e -> e.type().startsWith("csi.")).forEach(pending::add);
            effects = kubelet.csiAnswer(pending.remove());
        }
        kubelet.sandboxStarted(pod);
        pod.getSpec().getContainers().forEach(c -> kubelet.containerStarted(pod, c.getName()));
        return pod;
    }

    /** Deletes the running pod gracefully up to its sandbox stopping; returns the effects of SandboxStopped. */
    private Effects deletedUntilSandboxStopped(Pod pod) {
        Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
        assertEquals(
                List.of(POD_TERMINATION_STARTED, STOP_CONTAINER_REQUESTED),
                types(kill),
                "nothing is unmounted while containers run");
        assertEquals(List.of(STOP_POD_SANDBOX_REQUESTED), types(kubelet.containerExited(pod, "app", 143)));
        return kubelet.sandboxStopped(pod);
    }

    @Nested
    class Mounting {

        @Test
        void aClaimIsStagedOnTheNodeThenPublishedIntoThePodAndOnlyThenIsTheSandboxAskedFor() {
            Pod pod = withClaim("db-0");

            Effects bound = kubelet.apiserver(POD_BOUND, pod);
            assertEquals(List.of(NODE_STAGE_VOLUME_REQUESTED), types(bound));
            Event stage = bound.events().get(0);
            assertEquals("/kubelet/node-1", stage.source());
            assertEquals("namespaces/default/pods/db-0", stage.subject());
            StagedVolume staging = stage.data(StagedVolume.class);
            assertEquals("podfall.csi", staging.driver());
            assertEquals("default/pgdata", staging.volumeId());
            assertTrue(
                    staging.stagingTargetPath().startsWith("/var/lib/kubelet/plugins/kubernetes.io/csi/podfall.csi/"));
            assertFalse(kubelet.worker(pod).status().isStarted());

            Effects staged = kubelet.csiAnswer(stage);
            NodePublishVolume publish =
                    only(staged, NODE_PUBLISH_VOLUME_REQUESTED).data(NodePublishVolume.class);
            assertEquals(
                    new NodePublishVolume(
                            NODE,
                            "uid-db-0",
                            "data",
                            "podfall.csi",
                            "default/pgdata",
                            staging.stagingTargetPath(),
                            "/var/lib/kubelet/pods/uid-db-0/volumes/kubernetes.io~csi/data/mount",
                            false,
                            Map.of(),
                            Map.of()),
                    publish);
            assertEquals(List.of(NODE_PUBLISH_VOLUME_REQUESTED), types(staged));

            Effects published = kubelet.csiAnswer(only(staged, NODE_PUBLISH_VOLUME_REQUESTED));
            assertEquals(List.of(RUN_POD_SANDBOX_REQUESTED), types(published));
            assertEquals(T0, kubelet.worker(pod).status().startedAt, "timed from the fact that completed the mount");
        }

        @Test
        void anInlineVolumeIsPublishedWithItsAttributesAndNeverStaged() {
            Pod pod = aPod("web-1")
                    .withUid("uid-web-1")
                    .onNode(NODE)
                    .withCsiVolume("secrets", "secrets-store.csi.k8s.io", Map.of("secretProviderClass", "vault"))
                    .withAnnotation("podfall.io/unmount-seconds", "5")
                    .build();

            Effects bound = kubelet.apiserver(POD_BOUND, pod);
            NodePublishVolume publish =
                    only(bound, NODE_PUBLISH_VOLUME_REQUESTED).data(NodePublishVolume.class);
            assertEquals(List.of(NODE_PUBLISH_VOLUME_REQUESTED), types(bound));
            assertEquals("secrets-store.csi.k8s.io", publish.driver());
            assertTrue(publish.volumeId().matches("csi-[0-9a-f]{64}"), "csi_util.go makeVolumeHandle");
            assertNull(publish.stagingTargetPath());
            assertEquals(Map.of("secretProviderClass", "vault"), publish.volumeContext());
            assertEquals(
                    "5",
                    publish.annotations().get("podfall.io/unmount-seconds"),
                    "the simulated plugin learns how slowly it unmounts");
        }

        @Test
        void anEmptyDirOrNoVolumeAtAllAsksForTheSandboxAtOnce() {
            Pod pod = aPod("cache-0")
                    .withUid("uid-cache-0")
                    .onNode(NODE)
                    .withEmptyDir("scratch")
                    .build();
            assertEquals(List.of(RUN_POD_SANDBOX_REQUESTED), types(kubelet.apiserver(POD_BOUND, pod)));
        }

        @Test
        void aSecondPodOfTheNodePublishesTheStagedClaimWithoutStagingItAgain() {
            Pod first = withClaim("db-0");
            Effects staging = kubelet.apiserver(POD_BOUND, first);
            Pod second = withClaim("db-1");
            assertEquals(List.of(), types(kubelet.apiserver(POD_BOUND, second)), "the staging in flight serves both");

            Effects staged = kubelet.csiAnswer(only(staging, NODE_STAGE_VOLUME_REQUESTED));
            assertEquals(
                    List.of("uid-db-0", "uid-db-1"),
                    requests(staged, NODE_PUBLISH_VOLUME_REQUESTED).stream()
                            .map(e -> e.data(NodePublishVolume.class).podUid())
                            .toList());

            Pod third = withClaim("db-2");
            assertEquals(
                    List.of(NODE_PUBLISH_VOLUME_REQUESTED),
                    types(kubelet.apiserver(POD_BOUND, third)),
                    "once staged, a later pod publishes at once");
        }

        @Test
        void aPodWaitsForEveryOneOfItsVolumes() {
            Pod pod = aPod("web-1")
                    .withUid("uid-web-1")
                    .onNode(NODE)
                    .withClaim("data", "pgdata")
                    .withCsiVolume("secrets", "secrets-store.csi.k8s.io", Map.of())
                    .build();
            Effects bound = kubelet.apiserver(POD_BOUND, pod);
            assertEquals(List.of(NODE_STAGE_VOLUME_REQUESTED, NODE_PUBLISH_VOLUME_REQUESTED), types(bound));

            assertEquals(List.of(), types(kubelet.csiAnswer(only(bound, NODE_PUBLISH_VOLUME_REQUESTED))));
            Effects staged = kubelet.csiAnswer(only(bound, NODE_STAGE_VOLUME_REQUESTED));
            assertEquals(
                    List.of(RUN_POD_SANDBOX_REQUESTED),
                    types(kubelet.csiAnswer(only(staged, NODE_PUBLISH_VOLUME_REQUESTED))));
        }
    }

    @Nested
    class Unmounting {

        @Test
        void theVolumeIsUnpublishedAfterTheSandboxStoppedAndThePodIsTerminatedAndDeletedOnlyThen() {
            Pod pod = mountedAndRunning(withClaim("db-0"));

            Effects stopped = deletedUntilSandboxStopped(pod);
            assertEquals(
                    List.of(STATUS_UPDATE_REQUESTED, NODE_UNPUBLISH_VOLUME_REQUESTED),
                    types(stopped),
                    "the terminal status at once, before the unmount; no PodTerminated yet");
            assertEquals(
                    new PublishedVolume(
                            NODE,
                            "uid-db-0",
                            "data",
                            "podfall.csi",
                            "default/pgdata",
                            "/var/lib/kubelet/pods/uid-db-0/volumes/kubernetes.io~csi/data/mount"),
                    only(stopped, NODE_UNPUBLISH_VOLUME_REQUESTED).data(PublishedVolume.class));
            assertTrue(kubelet.worker(pod).status().isTerminated(), "the kill returned");
            assertFalse(kubelet.worker(pod).status().isFinished(), "SyncTerminatedPod waits for the unmount");
            assertEquals(
                    PodWorkerState.TerminatedPod, kubelet.worker(pod).status().workType());

            assertEquals(
                    List.of(),
                    types(kubelet.statusWritten(pod, stopped)),
                    "the terminal phase is on the API server, but the pod is not deleted during the unmount");

            Effects unpublished = kubelet.after(60).csiAnswer(only(stopped, NODE_UNPUBLISH_VOLUME_REQUESTED));
            assertEquals(
                    List.of(NODE_UNSTAGE_VOLUME_REQUESTED, POD_TERMINATED, DELETION_REQUESTED),
                    types(unpublished),
                    "the last pod of the node unstages the claim; the pod is terminated, then deleted");
            assertEquals(
                    T0.plusSeconds(60),
                    only(unpublished, POD_TERMINATED).time(),
                    "a slow unmount delays the end of the termination by as long as it takes");

            assertEquals(
                    List.of(),
                    types(kubelet.csiAnswer(only(unpublished, NODE_UNSTAGE_VOLUME_REQUESTED))),
                    "the pod does not wait for the node's unstaging");
        }

        @Test
        void theClaimStaysStagedUntilTheLastPodOfTheNodeUnpublishedIt() {
            Pod first = mountedAndRunning(withClaim("db-0"));
            Pod second = mountedAndRunning(withClaim("db-1"));

            Effects firstGone =
                    kubelet.csiAnswer(only(deletedUntilSandboxStopped(first), NODE_UNPUBLISH_VOLUME_REQUESTED));
            assertEquals(List.of(POD_TERMINATED), types(firstGone), "db-1 still uses it");

            Effects secondGone =
                    kubelet.csiAnswer(only(deletedUntilSandboxStopped(second), NODE_UNPUBLISH_VOLUME_REQUESTED));
            Event unstage = only(secondGone, NODE_UNSTAGE_VOLUME_REQUESTED);
            assertEquals("default/pgdata", unstage.data(StagedVolume.class).volumeId());
            assertEquals("namespaces/default/pods/db-1", unstage.subject(), "in the flow of the pod that used it last");
        }

        @Test
        void aForceDeletedPodIsStillUnmountedButNotReportedOrDeleted() {
            Pod pod = mountedAndRunning(withClaim("db-0"));
            Effects removed = kubelet.apiserver(OBJECT_REMOVED, kubelet.markedTerminating(pod, 0));
            assertEquals(List.of(POD_TERMINATION_STARTED, STOP_CONTAINER_REQUESTED), types(removed));
            kubelet.containerExited(pod, "app", 137);

            Effects stopped = kubelet.sandboxStopped(pod);
            assertEquals(List.of(NODE_UNPUBLISH_VOLUME_REQUESTED), types(stopped));
            Effects unpublished = kubelet.csiAnswer(stopped.events().get(0));
            assertEquals(
                    List.of(NODE_UNSTAGE_VOLUME_REQUESTED, POD_TERMINATED, REMOVE_POD_SANDBOX_REQUESTED),
                    types(unpublished),
                    "an orphan: no status, no delete, forgotten");
            assertNull(kubelet.worker(pod));
        }

        @Test
        void aPodDeletedWhileItsVolumeIsBeingPublishedWaitsForThePublishThenUndoesIt() {
            Pod pod = withClaim("db-0");
            Effects staged = kubelet.csiAnswer(only(kubelet.apiserver(POD_BOUND, pod), NODE_STAGE_VOLUME_REQUESTED));
            Event publish = only(staged, NODE_PUBLISH_VOLUME_REQUESTED);

            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(
                    List.of(POD_TERMINATION_STARTED, STATUS_UPDATE_REQUESTED),
                    types(kill),
                    "never started: the kill returns at once with the terminal status, but a publish is in flight");

            Effects published = kubelet.csiAnswer(publish);
            assertEquals(
                    List.of(NODE_UNPUBLISH_VOLUME_REQUESTED), types(published), "no sandbox for a terminating pod");
            assertEquals(
                    List.of(NODE_UNSTAGE_VOLUME_REQUESTED, POD_TERMINATED),
                    types(kubelet.csiAnswer(published.events().get(0))));
        }

        @Test
        void aPodDeletedWhileTheClaimIsBeingStagedEndsAtOnceAndTheStagingIsUndoneWhenItCompletes() {
            Pod pod = withClaim("db-0");
            Event stage = only(kubelet.apiserver(POD_BOUND, pod), NODE_STAGE_VOLUME_REQUESTED);

            Effects kill = kubelet.apiserver(OBJECT_MARKED_TERMINATING, kubelet.markedTerminating(pod, 30));
            assertEquals(
                    List.of(POD_TERMINATION_STARTED, STATUS_UPDATE_REQUESTED, POD_TERMINATED),
                    types(kill),
                    "nothing of the pod was published");
            assertEquals(List.of(NODE_UNSTAGE_VOLUME_REQUESTED), types(kubelet.csiAnswer(stage)));
        }

        @Test
        void aPodThatNeedsAClaimBeingUnstagedStagesItAgainOnceItIsUnstaged() {
            Pod first = mountedAndRunning(withClaim("db-0"));
            Event unstage = only(
                    kubelet.csiAnswer(only(deletedUntilSandboxStopped(first), NODE_UNPUBLISH_VOLUME_REQUESTED)),
                    NODE_UNSTAGE_VOLUME_REQUESTED);

            Pod second = withClaim("db-1");
            assertEquals(List.of(), types(kubelet.apiserver(POD_BOUND, second)), "it waits for the unstaging");
            Effects unstaged = kubelet.csiAnswer(unstage);
            assertEquals(List.of(NODE_STAGE_VOLUME_REQUESTED), types(unstaged));
            assertEquals(
                    "namespaces/default/pods/db-1", unstaged.events().get(0).subject());
        }
    }

    @Nested
    class Idempotence {

        @Test
        void everyCsiFactDeliveredAgainEmitsNothing() {
            Pod pod = withClaim("db-0");
            Effects staged = kubelet.csiAnswer(only(kubelet.apiserver(POD_BOUND, pod), NODE_STAGE_VOLUME_REQUESTED));
            Event stagedFact = last();
            assertEquals(Effects.NONE, kubelet.redeliver(stagedFact), "no second publish");

            Effects published = kubelet.csiAnswer(only(staged, NODE_PUBLISH_VOLUME_REQUESTED));
            Event publishedFact = last();
            assertEquals(List.of(RUN_POD_SANDBOX_REQUESTED), types(published));
            assertEquals(Effects.NONE, kubelet.redeliver(publishedFact), "no second sandbox");

            kubelet.sandboxStarted(pod);
            kubelet.containerStarted(pod, "app");
            Effects unpublished =
                    kubelet.csiAnswer(only(deletedUntilSandboxStopped(pod), NODE_UNPUBLISH_VOLUME_REQUESTED));
            Event unpublishedFact = last();
            assertEquals(
                    Effects.NONE, kubelet.redeliver(unpublishedFact), "no second PodTerminated, no second unstage");

            kubelet.csiAnswer(only(unpublished, NODE_UNSTAGE_VOLUME_REQUESTED));
            for (Event fact : List.of(stagedFact, publishedFact, unpublishedFact, last())) {
                assertEquals(Effects.NONE, kubelet.redeliver(fact), fact.type() + " again, late");
            }
        }

        @Test
        void theAnswerToAnEarlierStagingOfTheSameClaimIsNotTakenForTheCurrentOne() {
            Pod first = mountedAndRunning(withClaim("db-0"));
            Event firstStaged = kubelet.delivered.stream()
                    .filter(e -> e.is(VOLUME_STAGED))
                    .findFirst()
                    .orElseThrow();
            Event unstage = only(
                    kubelet.csiAnswer(only(deletedUntilSandboxStopped(first), NODE_UNPUBLISH_VOLUME_REQUESTED)),
                    NODE_UNSTAGE_VOLUME_REQUESTED);
            kubelet.csiAnswer(unstage);
            Pod second = withClaim("db-1");
            assertEquals(List.of(NODE_STAGE_VOLUME_REQUESTED), types(kubelet.apiserver(POD_BOUND, second)));

            assertEquals(Effects.NONE, kubelet.redeliver(firstStaged), "the staging in flight is not answered by it");
        }

        private Event last() {
            return kubelet.delivered.get(kubelet.delivered.size() - 1);
        }
    }

    private static List<Object> csiRequests(Effects effects) {
        return effects.events().stream()
                .filter(e -> e.type().startsWith("csi."))
                .map(Event::data)
                .map(Object.class::cast)
                .toList();
    }

    @Test
    void aKubeletRebuildingFromTheLogAsksForTheSameVolumesWithTheSameIds() {
        Pod first = mountedAndRunning(withClaim("db-0"));
        mountedAndRunning(withClaim("db-1"));
        kubelet.after(5);
        kubelet.csiAnswer(only(deletedUntilSandboxStopped(first), NODE_UNPUBLISH_VOLUME_REQUESTED));

        KubeletDriver live = new KubeletDriver();
        KubeletDriver rebuilt = new KubeletDriver();
        for (Event fact : kubelet.delivered) {
            Effects liveEffects = live.core.handle(live.state, fact, fact.time().plusMillis(40));
            Effects rebuiltEffects = rebuilt.core.handle(rebuilt.state, fact, fact.time());
            assertEquals(
                    liveEffects.events().stream().map(Event::id).toList(),
                    rebuiltEffects.events().stream().map(Event::id).toList(),
                    fact.type());
            assertEquals(csiRequests(liveEffects), csiRequests(rebuiltEffects), fact.type());
        }
        assertTrue(live.worker(first).status().isTerminated());
        assertTrue(rebuilt.worker(first).status().isTerminated());
    }
}
