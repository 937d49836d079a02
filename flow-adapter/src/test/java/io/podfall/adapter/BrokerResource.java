package io.podfall.adapter;

import io.podfall.broker.KafkaBroker;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A real broker for the adapter's test, and a log that was there before the service started: a ping whose pong had been
 * appended, and a ping whose pong had not (as if the service had crashed between the two).
 */
public class BrokerResource implements QuarkusTestResourceLifecycleManager {
    static final String TOPIC = "adapter-test.events";
    static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    static final Event PING_ANSWERED = ping("before-1", T0, -1);
    static final Event PING_UNANSWERED = ping("before-2", T0.plusSeconds(1), -1);

    static KafkaBroker broker;
    private boolean prefill = true;
    private boolean crashedPredecessor;
    /** The consumer of a service that died: a member of the group as far as the broker knows, never polling again. */
    private KafkaConsumer<String, byte[]> predecessor;

    static Event ping(String id, Instant at, long ringAfterMillis) {
        return Event.request(
                id,
                "/test-client",
                PingCore.PING,
                "namespaces/test/things/" + id,
                at,
                null,
                Map.of("ringAfterMillis", ringAfterMillis));
    }

    /**
     * {@code prefill=false}: the service starts on an empty log. {@code crashed-predecessor=true}: an instance of the
     * service died holding the partition, and its session has not timed out when the service starts again.
     */
    @Override
    public void init(Map<String, String> initArgs) {
        prefill = !"false".equals(initArgs.get("prefill"));
        crashedPredecessor = "true".equals(initArgs.get("crashed-predecessor"));
    }

    @Override
    public Map<String, String> start() {
        broker = KafkaBroker.temporary("podfall-adapter-test-").start(Duration.ofSeconds(60));
        if (prefill) {
            var core = new PingCore();
            var answered = core.handle(core.newState(), PING_ANSWERED, PING_ANSWERED.time())
                    .events()
                    .get(0);
            send(PING_ANSWERED, answered, PING_UNANSWERED);
        }
        if (crashedPredecessor) {
            predecessor = joinedAsTheService();
        }
        return Map.of("kafka.bootstrap.servers", broker.bootstrapServers());
    }

    @Override
    public void stop() {
        if (predecessor != null) {
            try {
                predecessor.close(Duration.ZERO);
            } catch (RuntimeException fenced) {
                // replaced by the service, as it should have been
            }
        }
        broker.close();
    }

    /**
     * A consumer in the service's group, as the service's member ({@code group.instance.id} the topic), holding the
     * partition after one poll, with a session long enough to outlast the test: a rebalance would wait for it.
     */
    private static KafkaConsumer<String, byte[]> joinedAsTheService() {
        var consumer = new KafkaConsumer<>(
                Map.<String, Object>of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        "adapter-test",
                        ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
                        TOPIC,
                        ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                        120_000,
                        ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG,
                        120_000,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        consumer.subscribe(List.of(TOPIC));
        Instant deadline = Instant.now().plusSeconds(120);
        while (consumer.assignment().isEmpty() && Instant.now().isBefore(deadline)) {
            consumer.poll(Duration.ofMillis(200));
        }
        if (consumer.assignment().isEmpty()) {
            throw new IllegalStateException("the predecessor got no partition");
        }
        return consumer;
    }

    static void send(Event... events) {
        try (var producer = producer()) {
            for (Event e : events) {
                producer.send(record(e));
            }
        }
    }

    /** The event's record with one header of another value, added last: a reader takes the last. */
    static void sendWithHeader(Event e, String header, String value) {
        try (var producer = producer()) {
            ProducerRecord<String, byte[]> record = record(e);
            record.headers().add(header, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            producer.send(record);
        }
    }

    private static ProducerRecord<String, byte[]> record(Event e) {
        var record = new ProducerRecord<>(TOPIC, e.partitionKey(), EventCodec.value(e));
        EventCodec.headers(e).forEach(h -> record.headers().add(h.getKey(), h.getValue()));
        return record;
    }

    static void sendRaw(String topic, byte[] value) {
        try (var producer = producer()) {
            producer.send(new ProducerRecord<>(topic, "test", value));
        }
    }

    private static KafkaProducer<String, byte[]> producer() {
        return new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringSerializer(),
                new ByteArraySerializer());
    }

    /**
     * Reads {@code topic} from the start until {@code done} holds for what was read, or 120 s pass: a wait, not a
     * measure; 150,000 records took over 30 s on a 2-CPU machine with a suite running beside the tests.
     */
    static List<ConsumerRecord<String, byte[]>> readUntil(
            String topic, Predicate<List<ConsumerRecord<String, byte[]>>> done) {
        List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(
                Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            var tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            Instant deadline = Instant.now().plusSeconds(120);
            while (!done.test(read) && Instant.now().isBefore(deadline)) {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
            }
        }
        return read;
    }
}
