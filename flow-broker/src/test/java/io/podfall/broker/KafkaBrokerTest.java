package io.podfall.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaBrokerTest {

    @Test
    void aRecordWrittenBeforeARestartIsReadAfterIt(@TempDir Path dir) throws Exception {
        try (KafkaBroker broker = KafkaBroker.at(dir, 0).start(Duration.ofSeconds(60))) {
            try (var producer = new KafkaProducer<>(
                    Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                    new StringSerializer(),
                    new StringSerializer())) {
                producer.send(new ProducerRecord<>("t", "k", "before restart")).get();
            }
            broker.stop();
            assertFalse(broker.isAlive());
            broker.start(Duration.ofSeconds(60));

            List<String> read = new ArrayList<>();
            try (var consumer = new KafkaConsumer<>(
                    Map.<String, Object>of(
                            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                            ConsumerConfig.GROUP_ID_CONFIG, "test",
                            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                    new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.subscribe(List.of("t"));
                long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (read.isEmpty() && System.nanoTime() < until) {
                    consumer.poll(Duration.ofMillis(500)).forEach(r -> read.add(r.value()));
                }
            }
            assertEquals(List.of("before restart"), read);
        }
    }

    @Test
    void aTemporaryBrokersDataGoesWhenItIsClosed() {
        Path log;
        try (KafkaBroker broker = KafkaBroker.temporary("podfall-kafka-test-").start(Duration.ofSeconds(60))) {
            log = broker.logFile();
            assertTrue(Files.isRegularFile(log), "the broker writes its log in its data directory");
        }
        assertFalse(Files.exists(log.getParent()), log.getParent() + " is left behind");
    }
}
