package io.podfall.bench;

import io.podfall.cli.analysis.Stats;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.EventTypes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The raw Kafka ceiling: what the broker does with the suite's records and nothing else. One producer with the
 * services' producer settings ({@code acks=all}, idempotence, {@code linger.ms=0}: flow-adapter's
 * microprofile-config.properties) sends records of the suite's own shapes (key, CloudEvent headers, JSON value) as fast
 * as it can to a topic of its own with the partitions of the event topic, while one consumer with the services'
 * consumer settings reads them: records/s and MB/s from the first send to the last receipt, and the latency (CreateTime
 * → received) under that load. Then records one at a time, each sent once the one before it was received: the latency
 * of one hop with the broker idle, Kafka's least share of every hop of P1.
 */
final class Ceiling {
    /**
     * What was measured: throughput, the latency under it (CreateTime → received, in milliseconds, as the record's
     * timestamp has them) and one record at a time (send → received, in microseconds).
     */
    record Result(long records, long bytes, double seconds, Stats.Summary loadedMillis, Stats.Summary idleMicros) {
        double recordsPerSecond() {
            return records / seconds;
        }

        double megabytesPerSecond() {
            return bytes / 1048576.0 / seconds;
        }
    }

    private Ceiling() {}

    /** Records like the suite's: a pod's ObjectRemoved-sized event of {@code valueBytes} bytes of JSON. */
    static List<ProducerRecord<String, byte[]>> synthetic(int valueBytes) {
        List<ProducerRecord<String, byte[]>> out = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Event e = Event.request(
                    UUID.randomUUID().toString(),
                    "/apiserver",
                    EventTypes.OBJECT_REMOVED,
                    "namespaces/default/pods/web-" + i,
                    Instant.now(),
                    null,
                    Map.of("padding", "x".repeat(Math.max(0, valueBytes - 14))));
            out.add(record("ignored", e));
        }
        return out;
    }

    static ProducerRecord<String, byte[]> record(String topic, Event e) {
        RecordHeaders headers = new RecordHeaders();
        EventCodec.headers(e).forEach(h -> headers.add(h.getKey(), h.getValue()));
        return new ProducerRecord<>(topic, null, e.partitionKey(), EventCodec.value(e), headers);
    }

    /** Sends {@code records} records cycling through {@code shapes}, then {@code pings} one at a time. */
    static Result run(
            String bootstrap, int partitions, List<ProducerRecord<String, byte[]>> shapes, long records, int pings) {
        String topic = "bench.ceiling." + System.currentTimeMillis();
        Admins.call(
                bootstrap,
                "create " + topic,
                a -> a.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                        .all());
        AtomicLong received = new AtomicLong();
        AtomicLong lastReceivedNanos = new AtomicLong();
        List<Long> loaded = new ArrayList<>();
        AtomicReference<CompletableFuture<Long>> ping = new AtomicReference<>();
        try (PartitionReader reader = new PartitionReader(
                        bootstrap,
                        topic,
                        "bench-ceiling-consumer",
                        batch -> batch.forEach(r -> {
                            // only this thread writes: what it adds before counting is seen by whoever reads the count
                            if (received.get() < records) {
                                loaded.add(System.currentTimeMillis() - r.timestamp());
                                lastReceivedNanos.set(System.nanoTime());
                                received.incrementAndGet();
                            } else {
                                received.incrementAndGet();
                                ping.get().complete(System.nanoTime());
                            }
                        }));
                KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
            long bytes = 0;
            long start = System.nanoTime();
            AtomicReference<Exception> failed = new AtomicReference<>();
            for (long i = 0; i < records; i++) {
                ProducerRecord<String, byte[]> shape = shapes.get((int) (i % shapes.size()));
                bytes += TopicTap.size(shape.key(), shape.value(), shape.headers());
                producer.send(
                        new ProducerRecord<>(topic, null, shape.key(), shape.value(), shape.headers()), (m, e) -> {
                            if (e != null) {
                                failed.compareAndSet(null, e);
                            }
                        });
            }
            producer.flush();
            if (failed.get() != null) {
                throw new IllegalStateException("the ceiling's producer failed: " + failed.get(), failed.get());
            }
            Instant deadline = Instant.now().plusSeconds(300);
            while (received.get() < records) {
                reader.check();
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("the ceiling's consumer got " + received.get() + " of " + records);
                }
                Sleep.millis(10);
            }
            double seconds = (lastReceivedNanos.get() - start) / 1e9;
            List<Long> idle = new ArrayList<>();
            ProducerRecord<String, byte[]> shape = shapes.get(0);
            for (int i = 0; i < pings; i++) {
                CompletableFuture<Long> got = new CompletableFuture<>();
                ping.set(got);
                long sent = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, null, shape.key(), shape.value(), shape.headers()));
                idle.add((got.get(30, TimeUnit.SECONDS) - sent) / 1_000);
            }
            return new Result(records, bytes, seconds, Stats.Summary.of(loaded), Stats.Summary.of(idle));
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("a ping was not received: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            Admins.call(
                    bootstrap,
                    "delete " + topic,
                    a -> a.deleteTopics(List.of(topic)).all());
        }
    }

    private static KafkaProducer<String, byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.LINGER_MS_CONFIG,
                        0),
                new StringSerializer(),
                new ByteArraySerializer());
    }
}
