package io.podfall.adapter;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;
import org.jboss.logging.Logger;

/**
 * Appends events to the log in binary-mode CloudEvents, keyed by namespace. Non-blocking: the Kafka producer batches
 * what is sent close together; the returned stage completes when the broker has acknowledged. Callers that need an
 * order between events send them in that order from one thread.
 */
@ApplicationScoped
public class LogWriter {
    private static final Logger LOG = Logger.getLogger(LogWriter.class);

    /**
     * Unbounded: an effect decided must be appended, however many one decision holds (a garbage collector deleting the
     * 100,000 pods of a ReplicaSet in one pass). A bounded buffer threw on overflow halfway through such a decision,
     * after the core had changed its state, and the rest was never appended. What it holds is bounded by the decisions
     * in flight; the producer's own buffer.memory still paces the sends.
     */
    @Inject
    @Channel("podfall-out")
    @OnOverflow(OnOverflow.Strategy.UNBOUNDED_BUFFER)
    Emitter<byte[]> out;

    /** Completes exceptionally with {@link EventTooLargeException}, appending nothing, when the data is too large. */
    public CompletionStage<Void> append(Event event) {
        CompletableFuture<Void> acked = new CompletableFuture<>();
        byte[] value = EventCodec.value(event);
        if (value.length > EventCodec.MAX_DATA_BYTES) {
            acked.completeExceptionally(new EventTooLargeException(event.type(), value.length));
            return acked;
        }
        RecordHeaders headers = new RecordHeaders();
        EventCodec.headers(event).forEach(h -> headers.add(h.getKey(), h.getValue()));
        var metadata = OutgoingKafkaRecordMetadata.<String>builder()
                .withKey(event.partitionKey())
                .withHeaders(headers)
                .build();
        out.send(Message.of(value)
                .addMetadata(metadata)
                .withAck(() -> {
                    acked.complete(null);
                    return CompletableFuture.completedFuture(null);
                })
                .withNack(failure -> {
                    acked.completeExceptionally(failure);
                    return CompletableFuture.completedFuture(null);
                }));
        return acked;
    }

    /**
     * Appends requests a service makes of its own accord once caught up (a kubelet registering its nodes, the API
     * server asking for its system namespaces), not as effects of an event, and logs what became of them.
     */
    public void appendOwnRequests(List<Event> requests, String what) {
        if (requests.isEmpty()) {
            return;
        }
        List<String> subjects = requests.stream().map(Event::subject).toList();
        appendAll(requests).whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.errorf(failure, "Could not ask for %s %s", what, subjects);
            } else {
                LOG.infof("Asked for %s %s", what, subjects);
            }
        });
    }

    public CompletionStage<Void> appendAll(List<Event> events) {
        if (events.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?>[] acks =
                events.stream().map(e -> append(e).toCompletableFuture()).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(acks);
    }
}
