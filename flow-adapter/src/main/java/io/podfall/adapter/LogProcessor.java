package io.podfall.adapter;

import io.micrometer.core.instrument.MeterRegistry;
import io.podfall.model.core.Core;
import io.podfall.model.core.CoreHost;
import io.podfall.model.core.Effects;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.UnreadableEventException;
import io.quarkus.runtime.Startup;
import io.smallrye.reactive.messaging.annotations.Blocking;
import io.smallrye.reactive.messaging.kafka.KafkaRecord;
import io.smallrye.reactive.messaging.kafka.KafkaRecordBatch;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Runs the service's core over the log: consume, decide, append, in log order, on one thread and one lock. The core
 * runs in a {@link CoreHost}, as in the replay engine (flow-replay); this class is what Kafka adds to it.
 *
 * <p><b>What the core reads.</b> Every event moves time on and is matched against the effects held back, but only those
 * of a type the core {@link Core#reads reads} reach it (and the observers): most of the log is other components'
 * conversations, and decoding it was a good part of a service's CPU. Live, a record of another type is read no further
 * than its envelope ({@link EventCodec#envelope}): the contract still refuses it if it is not an event of the catalogue
 * from a source that may append it.
 *
 * <p><b>Rebuild on start.</b> The service reads the log from the beginning. Until it has caught up with what was there
 * when it started, time is the time written on the events (so the core decides as it did live) and the host holds its
 * effects back ({@link CoreHost}): what is left when the service catches up is appended then.
 *
 * <p><b>Live.</b> Time is the simulated clock. Effects are appended as soon as they are decided, without waiting for
 * the broker's acknowledgement before the next event: the producer batches them.
 *
 * <p><b>Timers</b> fire in due order before any event at or after their time, and otherwise from one alarm set for the
 * earliest of them.
 *
 * <p><b>Unreadable records</b> (not an event, over the size limit, of a type not in the catalogue, from a source that
 * may not append it, data not of its type's schema) go to the dead-letter topic with the reason, counted by kind; the
 * service goes on.
 */
@Startup
@ApplicationScoped
public class LogProcessor {
    private static final Logger LOG = Logger.getLogger(LogProcessor.class);
    static final String DEAD_LETTERS = "podfall.dead.letters";
    /** The worker pool of one thread {@link #consume} runs on ({@code smallrye.messaging.worker.podfall-log.*}). */
    static final String LOG_THREAD = "podfall-log";

    private final CoreHost<Object> host;
    private final EventContract contract;
    private final MeterRegistry metrics;
    private final LogWriter writer;
    private final LogPosition position;
    private final SimulatedClock clock;
    private final Instance<LogObserver> observers;
    private final jakarta.enterprise.event.Event<CaughtUp> caughtUp;

    private final ReentrantLock lock = new ReentrantLock();
    /** Completed once what was held back while rebuilding is appended: the observers' futures for those effects. */
    private final List<CompletableFuture<Void>> heldBackWritten = new ArrayList<>();

    private final ScheduledThreadPoolExecutor alarm = newAlarm();
    private ScheduledFuture<?> nextAlarm;
    /** When {@link #nextAlarm} rings: the earliest timer's time when it was set. */
    private Instant nextAlarmAt;

    @Inject
    public LogProcessor(
            Core<Object> core,
            LogWriter writer,
            LogPosition position,
            SimulatedClock clock,
            EventContract contract,
            MeterRegistry metrics,
            Instance<LogObserver> observers,
            jakarta.enterprise.event.Event<CaughtUp> caughtUp) {
        this.host = new CoreHost<>(core, false);
        this.contract = contract;
        this.metrics = metrics;
        this.writer = writer;
        this.position = position;
        this.clock = clock;
        this.observers = observers;
        this.caughtUp = caughtUp;
        position.onCaughtUp(this::goLive);
    }

    /**
     * Handles one poll of the consumer (up to {@code max.poll.records}) and acknowledges it once: record by record, the
     * message pipeline took a fifth of a rebuild's CPU. A record that cannot be handled is nacked on its own, which
     * sends it alone to the dead-letter topic with its reason (the failure strategy).
     *
     * <p>On the log's own thread ({@value #LOG_THREAD}, one thread, polls in order), not on the Vert.x event loop
     * SmallRye would otherwise use: that loop also serves HTTP connections (kubectl, watches, the health probe), and a
     * poll of 1,000 records under load held it for up to 3.8 s (Vert.x's blocked-thread warnings). The lock is taken
     * record by record, so a reader of the state (a GET, a watch's start) waits for one record, not a poll. The cost is
     * two thread hand-offs a poll (the event loop to this thread and back): some 65 µs a hop in P1, where a poll holds
     * a record or two.
     */
    @Incoming("podfall-in")
    @Blocking(LOG_THREAD)
    public CompletionStage<Void> consume(KafkaRecordBatch<String, byte[]> batch) {
        List<KafkaRecord<String, byte[]>> records = batch.getRecords();
        // Decoded outside the lock, so that readers of the state wait only for the core.
        List<Object> decoded = new ArrayList<>(records.size());
        for (KafkaRecord<String, byte[]> record : records) {
            decoded.add(decode(record));
        }
        List<CompletionStage<Void>> rejected = new ArrayList<>(0);
        for (int i = 0; i < records.size(); i++) {
            lock.lock();
            try {
                handle(records.get(i), decoded.get(i), rejected);
            } finally {
                lock.unlock();
            }
        }
        if (rejected.isEmpty()) {
            return batch.ack();
        }
        return CompletableFuture.allOf(rejected.stream()
                        .map(CompletionStage::toCompletableFuture)
                        .toArray(CompletableFuture[]::new))
                .thenCompose(v -> batch.ack());
    }

    /**
     * The record's event, checked against the contract; or, live, for a type the core does not read, its envelope alone
     * (nothing else of it is used then: time is the clock's, nothing is held back); or why it is unreadable. Reading
     * every attribute of every record was up to a fifth of a service's event loop, and most records are of other types.
     */
    private Object decode(KafkaRecord<String, byte[]> record) {
        try {
            // The consumer's own headers: SmallRye's record.getHeaders() first copies each of them into a list of its
            // own (3 % of what runtime-svc allocated in P1, where a poll holds a record or two).
            Headers headers = record.getMetadata(IncomingKafkaRecordMetadata.class)
                    .orElseThrow()
                    .getRecord()
                    .headers();
            Function<String, byte[]> header = name -> lastHeader(headers, name);
            EventCodec.Envelope envelope = EventCodec.envelope(header, record.getPayload());
            contract.check(envelope.type(), envelope.source());
            if (host.isLive() && !host.reads(envelope.type())) {
                return envelope;
            }
            return EventCodec.decode(header, record.getPayload(), envelope);
        } catch (UnreadableEventException e) {
            return e;
        }
    }

    /** Under the lock: one record, in log order; a rejected record's nack is added to {@code rejected}. */
    private void handle(KafkaRecord<String, byte[]> record, Object decoded, List<CompletionStage<Void>> rejected) {
        TopicPartition tp = new TopicPartition(record.getTopic(), record.getPartition());
        long offset = record.getMetadata(IncomingKafkaRecordMetadata.class)
                .orElseThrow()
                .getOffset();
        if (decoded instanceof UnreadableEventException e) {
            position.processed(tp, offset);
            rejected.add(deadLetter(record, tp, offset, e));
            return;
        }
        // null: an envelope alone, decoded live (and live stays), of a type the core does not read
        Event event = decoded instanceof Event e ? e : null;
        String type = event != null ? event.type() : ((EventCodec.Envelope) decoded).type();
        if (position.alreadyProcessed(tp, offset)) {
            return;
        }
        try {
            if (event == null) {
                host.advanceTo(clock.now(), this::dispatch);
            } else {
                host.handle(event, host.isLive() ? clock.now() : event.time(), this::dispatch);
            }
        } catch (UnreadableEventException e) {
            rejected.add(deadLetter(record, tp, offset, e));
        } catch (RuntimeException e) {
            metrics.counter(DEAD_LETTERS, "reason", "core-failed").increment();
            LOG.errorf(e, "The core failed on %s at %s@%d; it goes to the dead-letter topic", type, tp, offset);
            rejected.add(record.nack(new IllegalStateException("core failed on " + type + ": " + e, e)));
        } finally {
            // Last: the record that completes the catch-up makes the service live only once it is handled.
            position.processed(tp, offset);
        }
    }

    /**
     * Sends the record to the dead-letter topic with the reason (SmallRye's {@code dead-letter-reason} header) and
     * counts it by kind: {@code podfall_dead_letters_total{reason="unknown-type"}} on {@code /q/metrics}.
     */
    private CompletionStage<Void> deadLetter(
            KafkaRecord<String, byte[]> record, TopicPartition tp, long offset, UnreadableEventException e) {
        LOG.warnf("Record %s@%d to the dead-letter topic: %s", tp, offset, e.getMessage());
        metrics.counter(DEAD_LETTERS, "reason", e.kind().tag()).increment();
        return record.nack(e);
    }

    /** Reads the core's state consistently (under the lock). */
    public <S, T> T read(Class<S> stateType, Function<S, T> query) {
        lock.lock();
        try {
            return query.apply(stateType.cast(host.state()));
        } finally {
            lock.unlock();
        }
    }

    public boolean isLive() {
        return position.isCaughtUp();
    }

    /** Under the lock: a decision of the host's, appended at once live, or once caught up. */
    private void dispatch(Event input, Effects effects, boolean heldBack) {
        CompletionStage<Void> written;
        if (effects.events().isEmpty()) {
            written = CompletableFuture.completedFuture(null);
        } else if (!heldBack) {
            written = writer.appendAll(effects.events());
        } else {
            CompletableFuture<Void> later = new CompletableFuture<>();
            heldBackWritten.add(later);
            written = later;
        }
        if (input != null) {
            for (LogObserver o : observers) {
                o.handled(input, effects, written);
            }
        }
        if (!heldBack) {
            rearm();
        }
    }

    private void goLive() {
        lock.lock();
        try {
            if (host.isLive()) {
                return;
            }
            List<Event> unseen = host.goLive();
            if (!unseen.isEmpty()) {
                LOG.infof("Appending %d effects decided before the restart but never appended", unseen.size());
            }
            CompletionStage<Void> written = writer.appendAll(unseen);
            heldBackWritten.forEach(f -> written.whenComplete((v, err) -> {
                if (err != null) {
                    f.completeExceptionally(err);
                } else {
                    f.complete(null);
                }
            }));
            heldBackWritten.clear();
            rearm();
        } finally {
            lock.unlock();
        }
        caughtUp.fireAsync(new CaughtUp());
    }

    /**
     * Sets the alarm for the earliest timer, after every decision: unless it already rings then. Cancelled and set
     * again after every event, the alarms piled up in the executor's queue until their times (15,000 in the controller
     * manager holding 5,000 pods).
     */
    private void rearm() {
        Instant next = host.nextTimer().orElse(null);
        if (Objects.equals(next, nextAlarmAt)) {
            return;
        }
        if (nextAlarm != null) {
            nextAlarm.cancel(false);
        }
        nextAlarm = next == null
                ? null
                : alarm.schedule(this::ring, clock.wallDelayUntil(next).toNanos(), TimeUnit.NANOSECONDS);
        nextAlarmAt = next;
    }

    /** Alarms waiting in the executor's queue: one at most. */
    int alarmsQueued() {
        return alarm.getQueue().size();
    }

    private void ring() {
        lock.lock();
        try {
            // This alarm has rung, early or not: the next decision sets one again if a timer is still waiting.
            nextAlarm = null;
            nextAlarmAt = null;
            host.advanceTo(clock.now(), this::dispatch);
            rearm();
        } catch (RuntimeException e) {
            LOG.error("A timer failed", e);
        } finally {
            lock.unlock();
        }
    }

    @PreDestroy
    void stop() {
        alarm.shutdownNow();
    }

    private static ScheduledThreadPoolExecutor newAlarm() {
        ScheduledThreadPoolExecutor alarm = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "podfall-timers");
            t.setDaemon(true);
            return t;
        });
        // A cancelled alarm leaves the queue at once, not when its time comes.
        alarm.setRemoveOnCancelPolicy(true);
        return alarm;
    }

    private static byte[] lastHeader(Headers headers, String name) {
        Header h = headers.lastHeader(name);
        return h == null ? null : h.value();
    }
}
