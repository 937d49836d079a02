package io.podfall.cli.analysis;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The pods that are marked for deletion and still hold their place on a node, folded from the API server's pod facts:
 * from the first fact with a deletionTimestamp until the pod is removed or reaches a terminal phase. That is how long
 * the scheduler counts a terminating pod's requests on its node (its informer drops Succeeded and Failed pods), and how
 * long a pod shows as Terminating.
 */
final class TerminatingPods {
    /** A terminating pod: its subject, its node, and the fact that first showed it marked. */
    record Terminating(String uid, String subject, String node, Instant since, String eventId) {}

    private final Map<String, Terminating> byUid = new LinkedHashMap<>();

    /** Whether {@code e} is an API server fact about a pod. */
    static boolean isPodFact(Event e) {
        return EventTypes.OBJECT_CHANGES.contains(e.type())
                && ResourceType.PODS.plural().equals(e.data().path("resource").asText());
    }

    /** A pod's subject as kubectl names it: {@code default/web-1} of {@code namespaces/default/pods/web-1}. */
    static String pod(String subject) {
        return subject.replaceFirst("^namespaces/([^/]+)/pods/", "$1/");
    }

    /** Folds the next event of the log. */
    void accept(Event e) {
        if (!isPodFact(e)) {
            return;
        }
        KubeObject pod = KubeObject.of(e);
        String uid = pod.uid();
        if (e.is(EventTypes.OBJECT_REMOVED) || pod.terminal()) {
            byUid.remove(uid);
        } else if (pod.terminating() && !byUid.containsKey(uid)) {
            pod.nodeName().ifPresent(node -> byUid.put(uid, new Terminating(uid, e.subject(), node, e.time(), e.id())));
        }
    }

    /** The pods terminating on a node now, in the order they were marked. */
    Collection<Terminating> now() {
        return Collections.unmodifiableCollection(byUid.values());
    }

    boolean contains(String uid) {
        return byUid.containsKey(uid);
    }
}
