package io.podfall.bench;

import io.podfall.cli.log.EventLog;
import io.podfall.model.event.Event;
import io.podfall.model.event.UnreadableEventException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Follows the event topic from its beginning as one more reader beside the services ({@link PartitionReader}), so that
 * when it receives a record is when a service could have: the broker's share of a hop. Each event goes to the sink with
 * its Kafka timestamp (CreateTime: set by the producer when the service handed it the event, that is when the service
 * had decided), the time this reader received it, and its size as the broker stores it (key, value and headers).
 */
final class TopicTap implements AutoCloseable {
    /** One record as read, {@code receivedMicros} on the same wall clock as the events' {@code ce_time}. */
    record Tapped(
            long offset,
            long createTimeMillis,
            long receivedMicros,
            int bytes,
            Event event,
            ConsumerRecord<String, byte[]> record) {}

    private final String bootstrap;
    private final String topic;
    private final PartitionReader reader;
    private final AtomicLong unreadable = new AtomicLong();
    /** Per partition, the offset after the last record read. */
    private final Map<Integer, Long> positions = new ConcurrentHashMap<>();

    TopicTap(String bootstrap, String topic, Consumer<Tapped> sink) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        reader = new PartitionReader(bootstrap, topic, "bench-topic-tap", batch -> {
            long received = Clock.micros();
            for (ConsumerRecord<String, byte[]> r : batch) {
                try {
                    sink.accept(new Tapped(r.offset(), r.timestamp(), received, size(r), EventLog.decode(r), r));
                } catch (UnreadableEventException e) {
                    unreadable.incrementAndGet();
                }
                positions.put(r.partition(), r.offset() + 1);
            }
        });
    }

    /** The bytes of a record as the broker keeps them, less the few bytes of framing: key, value and headers. */
    static int size(ConsumerRecord<String, byte[]> r) {
        return size(r.key(), r.value(), r.headers());
    }

    static int size(String key, byte[] value, Headers headers) {
        int bytes =
                (key == null ? 0 : key.getBytes(StandardCharsets.UTF_8).length) + (value == null ? 0 : value.length);
        for (Header h : headers) {
            bytes += h.key().getBytes(StandardCharsets.UTF_8).length + (h.value() == null ? 0 : h.value().length);
        }
        return bytes;
    }

    /** Waits until everything on the topic now has been read and handed to the sink. */
    void awaitCaughtUp(Duration timeout) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < BrokerLog.partitions(bootstrap, topic); p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<Integer, Long> end = new HashMap<>();
        Admins.call(
                        bootstrap,
                        "read the topic's end offsets",
                        a -> a.listOffsets(latest).all())
                .forEach((p, o) -> end.put(p.partition(), o.offset()));
        Instant deadline = Instant.now().plus(timeout);
        while (end.entrySet().stream().anyMatch(e -> positions.getOrDefault(e.getKey(), 0L) < e.getValue())) {
            reader.check();
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the topic reader did not catch up within " + timeout);
            }
            Sleep.millis(50);
        }
    }

    /** Adds the check that every record on the topic was an event of the contract: a benchmark appends no other. */
    void check(Report report) {
        report.check(
                "every record an event",
                unreadable.get() == 0,
                unreadable.get() + " records not events of the catalogue");
    }

    @Override
    public void close() {
        reader.close();
    }
}
