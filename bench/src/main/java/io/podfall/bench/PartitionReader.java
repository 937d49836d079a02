package io.podfall.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads every partition of a topic from its beginning on a daemon thread of its own, with the services' consumer
 * settings ({@code fetch.min.bytes=1}, {@code max.poll.records=1000}: flow-adapter's microprofile-config.properties),
 * so that what it receives, and when, is what a service could have. Partitions are assigned, not taken in a consumer
 * group: reading disturbs nobody.
 */
final class PartitionReader implements AutoCloseable {
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private volatile RuntimeException failure;

    /** Hands each poll's batch to {@code batches}, on the reader's thread. */
    PartitionReader(String bootstrap, String topic, String name, Consumer<ConsumerRecords<String, byte[]>> batches) {
        consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        ConsumerConfig.FETCH_MIN_BYTES_CONFIG,
                        1,
                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                        1000),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        List<TopicPartition> partitions = IntStream.range(0, BrokerLog.partitions(bootstrap, topic))
                .mapToObj(p -> new TopicPartition(topic, p))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        thread = new Thread(
                () -> {
                    try {
                        while (true) {
                            batches.accept(consumer.poll(Duration.ofMillis(100)));
                        }
                    } catch (WakeupException e) {
                        // close()
                    } catch (RuntimeException e) {
                        failure = e;
                    }
                },
                name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Throws what stopped the reader, if anything did. */
    void check() {
        if (failure != null) {
            throw new IllegalStateException(thread.getName() + " failed: " + failure, failure);
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
