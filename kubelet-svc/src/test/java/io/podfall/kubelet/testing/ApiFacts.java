package io.podfall.kubelet.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.podfall.model.Json;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.RequestRejection;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.k8s.ResourceType;
import java.time.Instant;

/**
 * The facts an API server appends about nodes and leases, for tests of the kubelet's node parts: each stored object
 * gets the next resourceVersion (and {@code uid-<name>} if it has no uid), each fact the time set by {@link #at}. A
 * fact is a request of its own unless it answers one ({@link #answer}, {@link #rejected}): then it is caused by it.
 */
public final class ApiFacts {
    public static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private long resourceVersion;
    private int facts;
    private Instant time = T0;

    /** The facts from now on happen at {@code time}. */
    public ApiFacts at(Instant time) {
        this.time = time;
        return this;
    }

    public Instant now() {
        return time;
    }

    /** A fact of {@code type} (ObjectCreated, ObjectUpdated, ObjectRemoved) about the object, stored anew. */
    public Event fact(String type, ResourceType resource, HasMetadata object) {
        return Event.request(
                "fact-" + ++facts,
                "/apiserver",
                type,
                subject(resource, object),
                time,
                null,
                ObjectChange.of(resource, stored(object)));
    }

    /**
     * The API server's answer to {@code request}: the fact of {@code type} showing the object as stored, caused by it.
     */
    public Event answer(Event request, String type, ResourceType resource, HasMetadata object) {
        return Event.causedBy(
                request.asCause(),
                request.id(),
                0,
                "/apiserver",
                type,
                subject(resource, object),
                time,
                ObjectChange.of(resource, stored(object)));
    }

    /** The API server refuses {@code request}. */
    public Event rejected(Event request, int code) {
        return Event.causedBy(
                request.asCause(),
                request.id(),
                0,
                "/apiserver",
                EventTypes.REQUEST_REJECTED,
                request.subject(),
                time,
                new RequestRejection(new StatusBuilder().withCode(code).build()));
    }

    /** The object as the API server stores it: the next resourceVersion, a uid if it had none. */
    private <T extends HasMetadata> T stored(T object) {
        @SuppressWarnings("unchecked")
        T copy = (T) Json.convert(Json.tree(object), object.getClass());
        copy.getMetadata().setResourceVersion(Long.toString(++resourceVersion));
        if (copy.getMetadata().getUid() == null) {
            copy.getMetadata().setUid("uid-" + copy.getMetadata().getName());
        }
        return copy;
    }

    private static String subject(ResourceType resource, HasMetadata object) {
        return Subjects.of(
                object.getMetadata().getNamespace(),
                resource.plural(),
                object.getMetadata().getName());
    }
}
