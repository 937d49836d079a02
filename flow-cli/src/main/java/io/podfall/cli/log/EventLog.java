package io.podfall.cli.log;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventCatalogue;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.UnreadableEventException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the event topic from the beginning, as an analysis tool does: assigned partitions, no consumer group, nothing
 * committed, so reading never disturbs the services.
 */
public final class EventLog implements AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(200);

    private final String topic;
    private final KafkaConsumer<String, byte[]> consumer;
    private final List<TopicPartition> partitions;
    private int unreadable;

    public EventLog(String bootstrap, String topic) {
        this.topic = topic;
        consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                        5000),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** How many records the topic holds now. */
    public long size() {
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions);
        return consumer.endOffsets(partitions).entrySet().stream()
                .mapToLong(e -> e.getValue() - begin.get(e.getKey()))
                .sum();
    }

    /** Everything on the topic now. */
    public List<Event> readToEnd(Duration timeout) {
        List<Event> events = new ArrayList<>();
        readToEnd(events::add, timeout);
        return List.copyOf(events);
    }

    /** Streams everything on the topic now to {@code sink}, in log order, one poll's batch at a time. */
    public void readToEnd(Consumer<Event> sink, Duration timeout) {
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        Instant deadline = Instant.now().plus(timeout);
        while (!reached(end) && Instant.now().isBefore(deadline)) {
            for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
                decode(r, sink);
            }
        }
    }

    /** Reads on until the events read so far satisfy {@code done}, or the timeout passes; returns them all. */
    public List<Event> readUntil(Predicate<List<Event>> done, Duration timeout) {
        List<Event> events = new ArrayList<>();
        Instant deadline = Instant.now().plus(timeout);
        while (!done.test(events) && Instant.now().isBefore(deadline)) {
            for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
                decode(r, events::add);
            }
        }
        return List.copyOf(events);
    }

    /**
     * Streams the topic to {@code sink} from the beginning and then live, as records arrive, until the calling thread
     * is interrupted (the interrupt is consumed) or {@link #stop()} is called. {@code caughtUp} runs once, between the
     * last record that was on the topic when following began and the first one after it.
     *
     * @throws IllegalStateException when the topic does not exist
     */
    public void follow(Consumer<Event> sink, Runnable caughtUp) {
        if (partitions.isEmpty()) {
            throw new IllegalStateException("no topic " + topic);
        }
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        Set<TopicPartition> behind = new HashSet<>(partitions);
        try {
            reachedWherePositioned(behind, end, caughtUp);
            while (true) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
                    TopicPartition p = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() >= end.get(p)) {
                        reached(behind, p, caughtUp);
                    }
                    decode(r, sink);
                    if (r.offset() + 1 >= end.get(p)) {
                        reached(behind, p, caughtUp);
                    }
                }
                // offsets that carry no record (transaction markers, compacted records) end no record
                reachedWherePositioned(behind, end, caughtUp);
            }
        } catch (WakeupException e) {
            // stop(): following ends here
        } catch (InterruptException e) {
            Thread.interrupted();
        }
    }

    private void reachedWherePositioned(Set<TopicPartition> behind, Map<TopicPartition, Long> end, Runnable caughtUp) {
        for (TopicPartition p : List.copyOf(behind)) {
            if (consumer.position(p) >= end.get(p)) {
                reached(behind, p, caughtUp);
            }
        }
    }

    /** Partition {@code p} is read up to where it ended when following began; the last one runs caughtUp. */
    private static void reached(Set<TopicPartition> behind, TopicPartition p, Runnable caughtUp) {
        if (behind.remove(p) && behind.isEmpty()) {
            caughtUp.run();
        }
    }

    /** Ends {@link #follow} from another thread (Ctrl-C); the consumer is still to be closed. */
    public void stop() {
        consumer.wakeup();
    }

    /**
     * Records on the topic that are not readable events, or that the contract refuses (they also went to the
     * dead-letter topic: no service acted on them, so no analysis counts them).
     */
    public int unreadable() {
        return unreadable;
    }

    private void decode(ConsumerRecord<String, byte[]> r, Consumer<Event> sink) {
        Event e;
        try {
            e = decode(r);
        } catch (UnreadableEventException ex) {
            unreadable++;
            return;
        }
        sink.accept(e);
    }

    /** The event a record holds, if it is one of the catalogue. */
    public static Event decode(ConsumerRecord<String, byte[]> r) {
        Event e = EventCodec.decode(
                        name -> {
                            Header h = r.headers().lastHeader(name);
                            return h == null ? null : h.value();
                        },
                        r.value())
                .withJsonData();
        EventCatalogue.check(e);
        return e;
    }

    private boolean reached(Map<TopicPartition, Long> end) {
        return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }

    @Override
    public void close() {
        consumer.close();
    }
}
