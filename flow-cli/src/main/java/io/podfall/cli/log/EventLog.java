package io.podfall.cli.log;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.UnreadableEventException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Reads the event topic from the beginning, as an analysis tool does: assigned partitions, no consumer group,
 * nothing committed, so reading never disturbs the services.
 */
public final class EventLog implements AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(200);

    private final String topic;
    private final KafkaConsumer<String, byte[]> consumer;
    private final List<TopicPartition> partitions;
    private int unreadable;

    public EventLog(String bootstrap, String topic) {
        this.topic = topic;
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000),
                new StringDeserializer(), new ByteArrayDeserializer());
        partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** How many records the topic holds now. */
    public long size() {
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions);
        return consumer.endOffsets(partitions).entrySet().stream().mapToLong(e -> e.getValue() - begin.get(e.getKey())).sum();
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

    /** Records on the topic that are not readable events (they also went to the dead-letter topic). */
    public int unreadable() {
        return unreadable;
    }

    private void decode(ConsumerRecord<String, byte[]> r, Consumer<Event> sink) {
        Event e;
        try {
            e = EventCodec.decode(name -> {
                Header h = r.headers().lastHeader(name);
                return h == null ? null : h.value();
            }, r.value());
        } catch (UnreadableEventException ex) {
            unreadable++;
            return;
        }
        sink.accept(e);
    }

    private boolean reached(Map<TopicPartition, Long> end) {
        return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }

    @Override
    public void close() {
        consumer.close();
    }
}
