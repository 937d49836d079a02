package io.podfall.controller;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.controller.Expectations.Expectation;
import io.podfall.controller.Expectations.Kind;
import io.podfall.controller.SyncTimer.Purpose;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.core.Effects;
import io.podfall.model.core.Timer;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * What a controller that changes objects through requests keeps beside its cache, upstream's work queue with its rate
 * limiter and the controller's expectations: which facts are news ({@link ResourceVersions}), which requests await an
 * answer ({@link Expectations}), and which owner waits out a failure ({@link Backoff}). It sets the controller's
 * {@link SyncTimer}s: {@code RETRY} when the backoff ends, {@code EXPECTATIONS} when the oldest request in flight times
 * out; the controller may add its own purposes.
 */
public final class WorkQueue {
    private final String controller;
    private final Expectations expectations = new Expectations();
    private final Backoff backoff = new Backoff();
    private final ResourceVersions resourceVersions = new ResourceVersions();

    /** @param controller the controller's name, the first part of its timer keys */
    public WorkQueue(String controller) {
        this.controller = controller;
    }

    /** The object a fact shows, if the event is a fact about one of these resources (plural names) not seen before. */
    public Optional<ObjectChange> news(Event event, Set<String> resources) {
        if (!EventTypes.OBJECT_CHANGES.contains(event.type())) {
            return Optional.empty();
        }
        ObjectChange change = ObjectChange.of(event);
        JsonNode meta = change.object().path("metadata");
        boolean news = resources.contains(change.resource())
                && resourceVersions.isNews(
                        meta.path("namespace").asText(""),
                        meta.path("resourceVersion").asText(null));
        return news ? Optional.of(change) : Optional.empty();
    }

    /** If the fact answers one of our requests: that request's expectation, now ended; a failed kind works again. */
    public Optional<Expectation> answered(Event fact) {
        Optional<Expectation> answered = expectations.observe(fact.causationId());
        answered.ifPresent(e -> backoff.succeeded(e.owner(), e.kind()));
        return answered;
    }

    /**
     * If the rejection refuses one of our requests: its expectation, now ended; the owner's next sync waits out the
     * backoff.
     */
    public Optional<Expectation> rejected(Event rejection, Effects.Builder effects) {
        Optional<Expectation> refused = expectations.observe(rejection.causationId());
        refused.ifPresent(e ->
                effects.timer(timer(Purpose.RETRY, e.owner()), backoff.failed(e.owner(), e.kind(), effects.now())));
        return refused;
    }

    /** If the timer is ours: the owner to sync now (after a timeout only if a request in flight did time out). */
    public Optional<String> fired(Timer timer, Effects.Builder effects) {
        if (!(timer.key() instanceof SyncTimer key) || !key.controller().equals(controller)) {
            return Optional.empty();
        }
        String owner = key.owner();
        if (key.purpose() == Purpose.EXPECTATIONS) {
            boolean expired = expectations.expire(owner, effects.now());
            expectations.nextTimeout(owner).ifPresent(at -> effects.timer(timer.key(), at));
            if (!expired) {
                return Optional.empty();
            }
        }
        return Optional.of(owner);
    }

    /**
     * Remembers the request just emitted as the owner's, until it is answered. The first of the owner's requests in
     * flight sets the timeout timer; when it fires, it moves on to the next oldest.
     */
    public void expect(String owner, Kind kind, String podUid, Effects.Builder effects) {
        boolean first = expectations.satisfied(owner);
        expectations.expect(effects.lastEventId(), new Expectation(owner, kind, podUid, effects.now()));
        if (first) {
            effects.timer(timer(Purpose.EXPECTATIONS, owner), effects.now().plus(Expectations.TIMEOUT));
        }
    }

    /** Whether the owner still waits out a failure: it must not sync yet. */
    public boolean backingOff(String owner, Instant now) {
        return backoff.waiting(owner, now);
    }

    public Expectations expectations() {
        return expectations;
    }

    /** The owner is gone: nothing it waited for matters any more. */
    public void forget(String owner) {
        expectations.forget(owner);
        backoff.forget(owner);
    }

    public SyncTimer timer(Purpose purpose, String owner) {
        return new SyncTimer(controller, purpose, owner);
    }
}
