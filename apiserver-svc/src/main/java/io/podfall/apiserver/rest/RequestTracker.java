package io.podfall.apiserver.rest;

import io.podfall.adapter.EventTooLargeException;
import io.podfall.adapter.LogObserver;
import io.podfall.adapter.LogProcessor;
import io.podfall.adapter.LogWriter;
import io.podfall.adapter.SimulatedClock;
import io.podfall.apiserver.registry.Outcome;
import io.podfall.apiserver.registry.Registry;
import io.podfall.apiserver.registry.RegistryState;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Turns an HTTP call into a request on the log and back: the request event is appended, the registry applies it when
 * the service consumes it, and the call is answered with the {@link Outcome} once the registry's effects are on the log
 * (so a client that reads after the answer sees what it was told). Nothing here changes state.
 */
@ApplicationScoped
public class RequestTracker implements LogObserver {
    private static final Logger LOG = Logger.getLogger(RequestTracker.class);
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Map<String, CompletableFuture<Outcome>> pending = new ConcurrentHashMap<>();

    @Inject
    LogWriter writer;

    @Inject
    LogProcessor processor;

    @Inject
    SimulatedClock clock;

    /** Appends a request; the stage completes with its outcome, or a 504 Status after {@link #TIMEOUT}. */
    public CompletionStage<Outcome> submit(String type, String subject, String traceparent, Object payload) {
        Event request = Event.request(
                UUID.randomUUID().toString(), Registry.SOURCE, type, subject, clock.now(), traceparent, payload);
        CompletableFuture<Outcome> answer = new CompletableFuture<>();
        // Registered before the append: the request may come back from the log before append() returns.
        pending.put(request.id(), answer);
        answer.completeOnTimeout(failure(StatusError.timeout()), TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((o, e) -> pending.remove(request.id()));
        writer.append(request).whenComplete((v, err) -> {
            if (err instanceof EventTooLargeException tooLarge) {
                // etcd refuses a request over its size limit; the log's limit is an event's (every reader refuses
                // larger).
                answer.complete(failure(StatusError.requestEntityTooLarge("the request is " + tooLarge.size()
                        + " bytes as an event on the log; limit is " + EventCodec.MAX_DATA_BYTES)));
            } else if (err != null) {
                LOG.warnf(err, "Could not append %s %s", type, subject);
                answer.complete(failure(
                        StatusError.internal("the request could not be appended to the log: " + err.getMessage())));
            }
        });
        return answer;
    }

    /**
     * Called under the processor's lock right after the registry handled {@code input}: the state is exactly its
     * result.
     */
    @Override
    public void handled(Event input, Effects effects, CompletionStage<Void> written) {
        CompletableFuture<Outcome> answer = pending.get(input.id());
        if (answer == null) {
            return;
        }
        Optional<Outcome> outcome = processor.read(RegistryState.class, s -> Outcome.of(s, input, effects));
        written.whenComplete((v, err) -> answer.complete(
                err != null
                        ? failure(StatusError.internal(
                                "the effects of the request could not be written to the log: " + err.getMessage()))
                        : outcome.orElseGet(
                                () -> failure(StatusError.internal("the registry did not handle " + input.type())))));
    }

    static Outcome failure(StatusError error) {
        return new Outcome(error.status().getCode(), Json.tree(error.status()));
    }
}
