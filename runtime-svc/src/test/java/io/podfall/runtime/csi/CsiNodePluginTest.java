package io.podfall.runtime.csi;

import static io.podfall.model.event.EventTypes.NODE_PUBLISH_VOLUME_REQUESTED;
import static io.podfall.model.event.EventTypes.NODE_STAGE_VOLUME_REQUESTED;
import static io.podfall.model.event.EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED;
import static io.podfall.model.event.EventTypes.NODE_UNSTAGE_VOLUME_REQUESTED;
import static io.podfall.model.event.EventTypes.VOLUME_PUBLISHED;
import static io.podfall.model.event.EventTypes.VOLUME_STAGED;
import static io.podfall.model.event.EventTypes.VOLUME_UNPUBLISHED;
import static io.podfall.model.event.EventTypes.VOLUME_UNSTAGED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.csi.NodePublishVolume;
import io.podfall.model.csi.PublishedVolume;
import io.podfall.model.csi.StagedVolume;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CsiNodePluginTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final String NODE = "node-1";
    private static final String SUBJECT = "namespaces/default/pods/db-0";
    private static final StagedVolume CLAIM = new StagedVolume(
            NODE,
            "podfall.csi",
            "default/pgdata",
            "/var/lib/kubelet/plugins/kubernetes.io/csi/podfall.csi/abc/globalmount");

    private final CsiNodePlugin plugin = new CsiNodePlugin();
    private final CsiState state = plugin.newState();
    private int requests;

    private static NodePublishVolume publishing(String podUid, String unmountSeconds) {
        return new NodePublishVolume(
                NODE,
                podUid,
                "data",
                CLAIM.driver(),
                CLAIM.volumeId(),
                CLAIM.stagingTargetPath(),
                "/var/lib/kubelet/pods/" + podUid + "/volumes/kubernetes.io~csi/data/mount",
                false,
                Map.of(),
                unmountSeconds == null ? Map.of() : Map.of(CsiNodePlugin.UNMOUNT_SECONDS, unmountSeconds));
    }

    private static PublishedVolume published(String podUid) {
        return publishing(podUid, null).publication();
    }

    private Event request(String type, Object data, Instant at) {
        return Event.request("req-" + ++requests, "/kubelet/" + NODE, type, SUBJECT, at, null, data);
    }

    private Effects handle(Event request) {
        return plugin.handle(state, request, request.time());
    }

    private Effects handle(String type, Object data) {
        return handle(request(type, data, T0));
    }

    private static List<String> types(Effects effects) {
        return effects.events().stream().map(Event::type).toList();
    }

    @Test
    void everyRequestIsAnsweredWithTheFactItAskedForCausedByIt() {
        Event stage = request(NODE_STAGE_VOLUME_REQUESTED, CLAIM, T0);
        Effects staged = handle(stage);
        assertEquals(List.of(VOLUME_STAGED), types(staged));
        Event fact = staged.events().get(0);
        assertEquals("/csi/node-1", fact.source());
        assertEquals(SUBJECT, fact.subject());
        assertEquals(stage.id(), fact.causationId());
        assertEquals(CLAIM, fact.data(StagedVolume.class));
        assertTrue(state.isStaged(NODE, CLAIM.driver(), CLAIM.volumeId()));

        Effects publishedFacts = handle(NODE_PUBLISH_VOLUME_REQUESTED, publishing("uid-db-0", null));
        assertEquals(List.of(VOLUME_PUBLISHED), types(publishedFacts));
        assertEquals(published("uid-db-0"), publishedFacts.events().get(0).data(PublishedVolume.class));
        assertTrue(state.isPublished(NODE, "uid-db-0", "data"));

        assertEquals(
                List.of(VOLUME_UNPUBLISHED), types(handle(NODE_UNPUBLISH_VOLUME_REQUESTED, published("uid-db-0"))));
        assertFalse(state.isPublished(NODE, "uid-db-0", "data"));

        assertEquals(List.of(VOLUME_UNSTAGED), types(handle(NODE_UNSTAGE_VOLUME_REQUESTED, CLAIM)));
        assertFalse(state.isStaged(NODE, CLAIM.driver(), CLAIM.volumeId()));
    }

    @Test
    void aSlowUnmountAnswersOnceItsSecondsHavePassedSinceTheRequest() {
        handle(NODE_STAGE_VOLUME_REQUESTED, CLAIM);
        handle(NODE_PUBLISH_VOLUME_REQUESTED, publishing("uid-db-0", "90"));

        Event unpublish = request(NODE_UNPUBLISH_VOLUME_REQUESTED, published("uid-db-0"), T0.plusSeconds(10));
        Effects waiting = plugin.handle(state, unpublish, T0.plusSeconds(11));
        assertEquals(List.of(), types(waiting), "the unmount takes its time");
        Timer done = waiting.timers().get(0);
        assertEquals(T0.plusSeconds(100), done.at(), "90 s from the request's time on the log");
        assertTrue(state.isPublished(NODE, "uid-db-0", "data"), "a stuck unmount keeps the volume published");

        Effects unpublished = plugin.fire(state, done, done.at());
        assertEquals(List.of(VOLUME_UNPUBLISHED), types(unpublished));
        assertEquals(unpublish.id(), unpublished.events().get(0).causationId(), "it answers the request");
        assertEquals(SUBJECT, unpublished.events().get(0).subject());
        assertFalse(state.isPublished(NODE, "uid-db-0", "data"));
        assertEquals(Effects.NONE, plugin.fire(state, done, done.at()), "answered once");
    }

    @Test
    void aSecondUnpublishWhileOneIsUnderWayWaitsForTheSameEnd() {
        handle(NODE_STAGE_VOLUME_REQUESTED, CLAIM);
        handle(NODE_PUBLISH_VOLUME_REQUESTED, publishing("uid-db-0", "30"));
        Timer done = handle(NODE_UNPUBLISH_VOLUME_REQUESTED, published("uid-db-0"))
                .timers()
                .get(0);

        Effects again = handle(request(NODE_UNPUBLISH_VOLUME_REQUESTED, published("uid-db-0"), T0.plusSeconds(5)));
        assertEquals(Effects.NONE, again, "not started twice, not answered early");
        assertEquals(List.of(VOLUME_UNPUBLISHED), types(plugin.fire(state, done, done.at())));
    }

    @Test
    void aRequestDeliveredAgainIsAnsweredNoSecondTime() {
        List<Event> served = List.of(
                request(NODE_STAGE_VOLUME_REQUESTED, CLAIM, T0),
                request(NODE_PUBLISH_VOLUME_REQUESTED, publishing("uid-db-0", "5"), T0),
                request(NODE_UNPUBLISH_VOLUME_REQUESTED, published("uid-db-0"), T0),
                request(NODE_UNSTAGE_VOLUME_REQUESTED, CLAIM, T0));
        for (Event request : served) {
            handle(request);
            assertEquals(Effects.NONE, handle(request), request.type() + " again");
        }
        served.forEach(request -> assertEquals(Effects.NONE, handle(request), request.type() + " again, late"));
    }

    @Test
    void aNewRequestForWhatIsDoneAlreadyIsAnsweredAsTheSpecsIdempotentCallsAre() {
        handle(NODE_STAGE_VOLUME_REQUESTED, CLAIM);
        assertEquals(List.of(VOLUME_STAGED), types(handle(NODE_STAGE_VOLUME_REQUESTED, CLAIM)));
        assertEquals(
                List.of(VOLUME_UNPUBLISHED),
                types(handle(NODE_UNPUBLISH_VOLUME_REQUESTED, published("uid-gone"))),
                "nothing published there: unpublished already");
        handle(NODE_UNSTAGE_VOLUME_REQUESTED, CLAIM);
        assertEquals(List.of(VOLUME_UNSTAGED), types(handle(NODE_UNSTAGE_VOLUME_REQUESTED, CLAIM)));
    }

    @Test
    void aPublishFromAStagingPathWithNothingStagedIsRefused() {
        assertEquals(Effects.NONE, handle(NODE_PUBLISH_VOLUME_REQUESTED, publishing("uid-db-0", null)));
        assertFalse(state.isPublished(NODE, "uid-db-0", "data"));
    }

    @Test
    void anInlineVolumeIsPublishedWithoutStaging() {
        NodePublishVolume inline = new NodePublishVolume(
                NODE,
                "uid-web-1",
                "secrets",
                "secrets-store.csi.k8s.io",
                "csi-0123",
                null,
                "/var/lib/kubelet/pods/uid-web-1/volumes/kubernetes.io~csi/secrets/mount",
                true,
                Map.of("secretProviderClass", "vault"),
                Map.of());
        assertEquals(List.of(VOLUME_PUBLISHED), types(handle(NODE_PUBLISH_VOLUME_REQUESTED, inline)));
    }

    @Test
    void unreadableOrIncompleteRequestsChangeNothing() {
        assertEquals(Effects.NONE, handle(NODE_STAGE_VOLUME_REQUESTED, Map.of("node", List.of("not", "a", "name"))));
        assertEquals(Effects.NONE, handle(NODE_PUBLISH_VOLUME_REQUESTED, Map.of("node", NODE)));
        assertEquals(Effects.NONE, handle(NODE_UNPUBLISH_VOLUME_REQUESTED, Map.of()));
        assertEquals(Effects.NONE, handle(EventTypes.RUN_POD_SANDBOX_REQUESTED, CLAIM), "not the plugin's");
    }

    @Test
    void aPluginRebuildingFromTheLogTimesTheSlowUnmountAsItDidLive() {
        List<Event> log = List.of(
                request(NODE_STAGE_VOLUME_REQUESTED, CLAIM, T0),
                request(NODE_PUBLISH_VOLUME_REQUESTED, publishing("uid-db-0", "2.5"), T0),
                request(NODE_UNPUBLISH_VOLUME_REQUESTED, published("uid-db-0"), T0.plusSeconds(30)));
        CsiState live = plugin.newState();
        CsiState rebuilt = plugin.newState();
        List<Effects> liveEffects = log.stream()
                .map(e -> plugin.handle(live, e, e.time().plusMillis(40)))
                .toList();
        List<Effects> rebuiltEffects =
                log.stream().map(e -> plugin.handle(rebuilt, e, e.time())).toList();
        for (int i = 0; i < log.size(); i++) {
            assertEquals(
                    liveEffects.get(i).events().stream().map(Event::id).toList(),
                    rebuiltEffects.get(i).events().stream().map(Event::id).toList());
            assertEquals(liveEffects.get(i).timers(), rebuiltEffects.get(i).timers());
        }
        Timer done = liveEffects.get(2).timers().get(0);
        assertEquals(T0.plusMillis(32_500), done.at());
        assertEquals(
                plugin.fire(live, done, done.at().plusMillis(7)).events().stream()
                        .map(Event::id)
                        .toList(),
                plugin.fire(rebuilt, done, done.at()).events().stream()
                        .map(Event::id)
                        .toList(),
                "the same VolumeUnpublished, recognised on the log");
    }
}
