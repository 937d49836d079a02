package io.podfall.controller.deployment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.podfall.controller.CachedPod;
import io.podfall.controller.Expectations.Kind;
import io.podfall.model.Json;
import io.podfall.model.apiserver.CreationRequest;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Part;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The Deployment controller of kube-controller-manager ({@code pkg/controller/deployment/}): a Deployment owns
 * ReplicaSets named {@code <deployment>-<pod-template-hash>}, one per pod template it has had; it keeps the one of its
 * current template at {@code spec.replicas}, rolls from old ones to it within maxSurge and maxUnavailable (or all at
 * once, Recreate), and writes its status. What one sync decides is {@link DeploymentSync}'s; this class keeps the
 * cache, sends the requests and waits for their answers.
 *
 * <p><b>The cache.</b> It folds every apiserver fact about Deployments, ReplicaSets and pods into its cache
 * ({@link DeploymentState}). A ReplicaSet belongs to the Deployment its controller reference names; orphans that match
 * a selector are not adopted ({@code ClaimReplicaSets} is not simulated). A fact at or below the last resourceVersion
 * seen in its namespace is a redelivery and changes nothing.
 *
 * <p><b>Sync</b>, after every fact about a Deployment or a ReplicaSet it controls (and, for a Recreate Deployment,
 * about the pods of those ReplicaSets): the ReplicaSets it creates ({@code apiserver.CreationRequested}, with the
 * pod-template-hash label on the selector, the template and the ReplicaSet, a controller reference that blocks the
 * owner's deletion and the revision, desired-replicas and max-replicas annotations), the ReplicaSets it scales or
 * re-annotates (a JSON merge patch of their {@code spec.replicas}, {@code spec.minReadySeconds} and annotations) and
 * the Deployment's status with its revision annotation (a merge patch of {@code /status}, as upstream writes the
 * annotation with UpdateStatus, so it is no new generation), each only if it changed. A scale through {@code /scale} is
 * an ordinary update of {@code spec.replicas} to it.
 *
 * <p><b>One sync at a time.</b> Upstream's sync waits for the answer to each call before the next; here a sync sends
 * its requests together, and the Deployment is not synced again until every one is answered (a fact or a
 * {@code RequestRejected} caused by it): until then the cache does not show their outcome. A rejection delays the next
 * sync by a growing backoff; an answer that never comes ends the wait after
 * {@link io.podfall.controller.Expectations#TIMEOUT}.
 *
 * <p>Timer keys: {@code deployment/retry/<ns>/<name>}, {@code deployment/expectations/<ns>/<name>}.
 */
public final class DeploymentController implements Part<DeploymentState> {
    /** The event source of every request this controller sends. */
    public static final String SOURCE = "/controller/deployment";

    private static final Set<String> RESOURCES =
            Set.of(ResourceType.DEPLOYMENTS.plural(), ResourceType.REPLICASETS.plural(), ResourceType.PODS.plural());

    @Override
    public DeploymentState newState() {
        return new DeploymentState();
    }

    @Override
    public void handle(DeploymentState state, Event event, Effects.Builder effects) {
        if (event.is(EventTypes.REQUEST_REJECTED)) {
            state.requests().rejected(event, effects);
            return;
        }
        Optional<ObjectChange> news = state.requests().news(event, RESOURCES);
        if (news.isEmpty()) {
            return;
        }
        Set<String> toSync = new LinkedHashSet<>();
        state.requests().answered(event).ifPresent(answered -> toSync.add(answered.owner()));
        boolean removed = event.is(EventTypes.OBJECT_REMOVED);
        JsonNode meta = news.get().object().path("metadata");
        String key = meta.path("namespace").asText("") + "/" + meta.path("name").asText("");
        switch (news.get().resourceType()) {
            case DEPLOYMENTS -> {
                if (removed) {
                    state.removeDeployment(key);
                } else {
                    state.putDeployment(key, news.get().object(Deployment.class));
                    toSync.add(key);
                }
            }
            case REPLICASETS -> {
                state.replicaSet(key).flatMap(state::controllerKey).ifPresent(toSync::add);
                ReplicaSet rs = news.get().object(ReplicaSet.class);
                if (removed) {
                    state.removeReplicaSet(key);
                } else {
                    state.putReplicaSet(key, rs);
                }
                state.controllerKey(rs).ifPresent(toSync::add);
            }
            default -> podChanged(state, CachedPod.of(news.get().object()), removed, toSync);
        }
        if (!event.is(EventTypes.OBJECT_LISTED)) { // listed at a slice's start: cached, synced at its next change
            toSync.forEach(k -> sync(state, k, effects));
        }
    }

    /** A retry after a backoff, or a request in flight timed out: sync the Deployment. */
    @Override
    public void fire(DeploymentState state, Timer timer, Effects.Builder effects) {
        state.requests().fired(timer, effects).ifPresent(key -> sync(state, key, effects));
    }

    /** A pod of a ReplicaSet: only a Recreate rollout waits on pods (upstream's deletePod). */
    private static void podChanged(DeploymentState state, CachedPod pod, boolean removed, Set<String> toSync) {
        String uid = pod.uid();
        Optional<String> before = state.pod(uid).map(DeploymentState.PodOfReplicaSet::replicaSetUid);
        if (removed) {
            state.removePod(uid);
        } else {
            state.putPod(pod);
        }
        Stream.concat(before.stream(), Stream.ofNullable(pod.controllerUid()))
                .flatMap(rs -> state.controllerKeyOfReplicaSet(rs).stream())
                .filter(key -> state.deployment(key)
                        .map(d -> !DeploymentUtil.isRollingUpdate(d))
                        .orElse(false))
                .forEach(toSync::add);
    }

    private static void sync(DeploymentState state, String key, Effects.Builder effects) {
        Optional<Deployment> cached = state.deployment(key);
        if (cached.isEmpty()
                || state.requests().backingOff(key, effects.now())
                || !state.requests().expectations().satisfied(key)) {
            return;
        }
        Deployment d = cached.get();
        String namespace = d.getMetadata().getNamespace();
        DeploymentSync sync = new DeploymentSync(
                        d,
                        state.replicaSetsControlledBy(d.getMetadata().getUid()),
                        name -> state.replicaSet(namespace + "/" + name),
                        state::podsRunning,
                        effects.now())
                .run();
        String replicaSets = ResourceType.REPLICASETS.plural();
        for (ReplicaSetView created : sync.toCreate()) {
            effects.emit(
                    SOURCE,
                    EventTypes.CREATION_REQUESTED,
                    Subjects.of(namespace, replicaSets, created.name()),
                    new CreationRequest(replicaSets, namespace, Json.tree(created.rs)));
            state.requests().expect(key, Kind.CREATION, null, effects);
        }
        for (ReplicaSetView updated : sync.toUpdate()) {
            ObjectNode patch = Json.MAPPER.createObjectNode();
            patch.putObject("metadata").set("annotations", Json.tree(updated.annotations()));
            ObjectNode spec = patch.putObject("spec").put("replicas", updated.replicas());
            if (updated.rs.getSpec().getMinReadySeconds() != null) {
                spec.put("minReadySeconds", updated.rs.getSpec().getMinReadySeconds());
            }
            effects.emit(
                    SOURCE,
                    EventTypes.PATCH_REQUESTED,
                    Subjects.of(namespace, replicaSets, updated.name()),
                    new PatchRequest(replicaSets, namespace, updated.name(), null, PatchRequest.MERGE, patch));
            state.requests().expect(key, Kind.WRITE, null, effects);
        }
        writeStatus(state, key, d, sync, effects);
    }

    /** The status and the revision annotation, in one merge patch of {@code /status}, if either changed. */
    private static void writeStatus(
            DeploymentState state, String key, Deployment d, DeploymentSync sync, Effects.Builder effects) {
        DeploymentStatus current = d.getStatus() == null ? new DeploymentStatus() : d.getStatus();
        String currentRevision = d.getMetadata().getAnnotations() == null
                ? null
                : d.getMetadata().getAnnotations().get(DeploymentUtil.REVISION);
        boolean revisionChanged = !Objects.equals(sync.revision(), currentRevision);
        if (!revisionChanged && Json.tree(sync.status()).equals(Json.tree(current))) {
            return;
        }
        ObjectNode patch = Json.MAPPER.createObjectNode();
        if (revisionChanged) {
            patch.putObject("metadata").putObject("annotations").put(DeploymentUtil.REVISION, sync.revision());
        }
        patch.set("status", Json.tree(sync.status()));
        String namespace = d.getMetadata().getNamespace();
        String name = d.getMetadata().getName();
        String deployments = ResourceType.DEPLOYMENTS.plural();
        effects.emit(
                SOURCE,
                EventTypes.PATCH_REQUESTED,
                Subjects.of(namespace, deployments, name),
                new PatchRequest(deployments, namespace, name, "status", PatchRequest.MERGE, patch));
        state.requests().expect(key, Kind.WRITE, null, effects);
    }
}
