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
import java.util.function.Predicate;

/**
 * Reads the event topic from the beginning, as an analysis tool does: assigned partitions, no consumer group,
 * nothing committed, so reading never disturbs the services.
 */
public final class EventLog implements AutoCloseable {
    private final KafkaConsumer<String, byte[]> consumer;
    private final List<Event> events = new ArrayList<>();
    private int unreadable;

    public EventLog(String bootstrap, String topic) {
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000),
                new StringDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Everything on the topic now. */
    public List<Event> readToEnd(Duration timeout) {
        Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment());
        Instant deadline = Instant.now().plus(timeout);
        while (!reached(end) && Instant.now().isBefore(deadline)) {
            poll();
        }
        return List.copyOf(events);
    }

    /** Reads on until the events read so far satisfy {@code done}, or the timeout passes; returns them all. */
    public List<Event> readUntil(Predicate<List<Event>> done, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (!done.test(events) && Instant.now().isBefore(deadline)) {
            poll();
        }
        return List.copyOf(events);
    }

    /** Records on the topic that are not readable events (they also went to the dead-letter topic). */
    public int unreadable() {
        return unreadable;
    }

    private void poll() {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            try {
                events.add(EventCodec.decode(name -> {
                    Header h = r.headers().lastHeader(name);
                    return h == null ? null : h.value();
                }, r.value()));
            } catch (UnreadableEventException e) {
                unreadable++;
            }
        }
    }

    private boolean reached(Map<TopicPartition, Long> end) {
        return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }

    @Override
    public void close() {
        consumer.close();
    }
}
