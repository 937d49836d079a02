package io.podfall.bench;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.UnreadableEventException;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Follows the event topic from its beginning on a thread of its own, as one more reader beside the services and
 * with their consumer settings ({@code fetch.min.bytes=1}, {@code max.poll.records=1000}; flow-adapter's
 * microprofile-config.properties), so that when it receives a record is when a service could have: the broker's
 * share of a hop. Each record goes to the sink with its Kafka timestamp (CreateTime: set by the producer when the
 * service handed it the event, that is when the service had decided), the time this reader received it, and its
 * size as the broker stores it (key, value and headers).
 */
final class TopicTap implements AutoCloseable {
    /** One record as read, {@code receivedMicros} on the same wall clock as the events' {@code ce_time}. */
    record Tapped(long offset, long createTimeMillis, long receivedMicros, int bytes, Event event,
                  ConsumerRecord<String, byte[]> record) {
    }

    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private final AtomicLong read = new AtomicLong();
    private final AtomicLong unreadable = new AtomicLong();
    /** Per partition, the offset after the last record read. */
    private final Map<Integer, Long> positions = new ConcurrentHashMap<>();
    private final String bootstrap;
    private final List<TopicPartition> partitions;
    private volatile RuntimeException failure;

    TopicTap(String bootstrap, String topic, Consumer<Tapped> sink) {
        this.bootstrap = bootstrap;
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1000),
                new StringDeserializer(), new ByteArrayDeserializer());
        partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        if (partitions.isEmpty()) {
            consumer.close();
            throw new IllegalStateException("no topic " + topic);
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        thread = new Thread(() -> follow(sink), "bench-topic-tap");
        thread.setDaemon(true);
        thread.start();
    }

    private void follow(Consumer<Tapped> sink) {
        try {
            while (true) {
                ConsumerRecords<String, byte[]> batch = consumer.poll(Duration.ofMillis(100));
                long received = Clock.micros();
                for (ConsumerRecord<String, byte[]> r : batch) {
                    positions.put(r.partition(), r.offset() + 1);
                    Event e;
                    try {
                        e = EventCodec.decode(name -> {
                            Header h = r.headers().lastHeader(name);
                            return h == null ? null : h.value();
                        }, r.value());
                    } catch (UnreadableEventException ex) {
                        unreadable.incrementAndGet();
                        continue;
                    }
                    sink.accept(new Tapped(r.offset(), r.timestamp(), received, size(r), e, r));
                    read.incrementAndGet();
                }
            }
        } catch (WakeupException e) {
            // close()
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    /** The bytes of a record as the broker keeps them, less the few bytes of framing: key, value and headers. */
    static int size(ConsumerRecord<String, byte[]> r) {
        return size(r.key(), r.value(), r.headers());
    }

    static int size(String key, byte[] value, Headers headers) {
        int bytes = (key == null ? 0 : key.getBytes(StandardCharsets.UTF_8).length) + (value == null ? 0 : value.length);
        for (Header h : headers) {
            bytes += h.key().getBytes(StandardCharsets.UTF_8).length + (h.value() == null ? 0 : h.value().length);
        }
        return bytes;
    }

    /** Waits until everything on the topic now has been read and handed to the sink. */
    void awaitCaughtUp(Duration timeout) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions.forEach(p -> latest.put(p, OffsetSpec.latest()));
        Map<Integer, Long> end = new HashMap<>();
        Admins.call(bootstrap, "read the topic's end offsets", a -> a.listOffsets(latest).all())
                .forEach((p, o) -> end.put(p.partition(), o.offset()));
        Instant deadline = Instant.now().plus(timeout);
        while (end.entrySet().stream().anyMatch(e -> positions.getOrDefault(e.getKey(), 0L) < e.getValue())) {
            check();
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the topic reader did not catch up within " + timeout);
            }
            Sleep.millis(50);
        }
    }

    long read() {
        check();
        return read.get();
    }

    long unreadable() {
        return unreadable.get();
    }

    /** Throws what stopped the reader, if anything did. */
    void check() {
        if (failure != null) {
            throw new IllegalStateException("the topic reader failed: " + failure, failure);
        }
    }

    @Override
    public void close() {
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close();
    }
}
