package io.podfall.cli.analysis;

import static io.podfall.cli.analysis.PodLog.at;
import static io.podfall.cli.analysis.PodLog.data;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A synthetic {@code kubectl delete deployment web --cascade=foreground}, in the order the suite logs it: the
 * Deployment and its ReplicaSet marked with the foregroundDeletion finalizer, the garbage collector's delete of each of
 * the two pods (their deletions overlap; the endpoints controller takes the first out of its Service), then the
 * ReplicaSet and the Deployment let go and removed, each caused by the removal before it.
 */
public final class Cascade {
    public static final String DEPLOYMENT = "namespaces/default/deployments/web";
    public static final String REPLICA_SET = "namespaces/default/replicasets/web-1a2b";

    public final List<Event> events = new ArrayList<>();
    public final PodLog first = new PodLog("default", "web-1a2b-a", "node-1", "10.244.1.2");
    public final PodLog second = new PodLog("default", "web-1a2b-b", "node-1", "10.244.1.3");
    private int seq;

    public Cascade() {
        Event request = Event.request(
                "del-web",
                "/apiserver",
                EventTypes.DELETION_REQUESTED,
                DEPLOYMENT,
                at(0),
                null,
                data("resource", "deployments", "options", data("propagationPolicy", "Foreground")));
        Event marked = next(request, "/apiserver", EventTypes.OBJECT_MARKED_TERMINATING, DEPLOYMENT, 10);
        Event rsDelete = next(marked, "/controller/garbagecollector", EventTypes.DELETION_REQUESTED, REPLICA_SET, 20);
        Event rsMarked = next(rsDelete, "/apiserver", EventTypes.OBJECT_MARKED_TERMINATING, REPLICA_SET, 30);
        events.addAll(List.of(request, marked, rsDelete, rsMarked));

        first.deletedInCascade(rsMarked, 40, 2, 100, false);
        Event podMarked = first.events.get(1);
        Event patch = next(
                podMarked, "/controller/endpoint", EventTypes.PATCH_REQUESTED, "namespaces/default/endpoints/web", 60);
        first.events.add(patch);
        first.events.add(next(patch, "/apiserver", EventTypes.OBJECT_UPDATED, "namespaces/default/endpoints/web", 70));
        second.deletedInCascade(rsMarked, 41, 2, 200, false);
        List<Event> pods = new ArrayList<>(first.events);
        pods.addAll(second.events);
        pods.sort(Comparator.comparing(Event::time));
        events.addAll(pods);

        Event lastGone = second.events.stream()
                .filter(e -> e.is(EventTypes.OBJECT_REMOVED))
                .findFirst()
                .orElseThrow();
        Event rsLetGo = next(lastGone, "/controller/garbagecollector", EventTypes.PATCH_REQUESTED, REPLICA_SET, 500);
        Event rsGone = next(rsLetGo, "/apiserver", EventTypes.OBJECT_REMOVED, REPLICA_SET, 505);
        Event letGo = next(rsGone, "/controller/garbagecollector", EventTypes.PATCH_REQUESTED, DEPLOYMENT, 510);
        events.addAll(
                List.of(rsLetGo, rsGone, letGo, next(letGo, "/apiserver", EventTypes.OBJECT_REMOVED, DEPLOYMENT, 515)));
    }

    private Event next(Event cause, String source, String type, String subject, long ms) {
        return Event.causedBy(cause.asCause(), "del-web", seq++, source, type, subject, at(ms), Map.of());
    }
}
