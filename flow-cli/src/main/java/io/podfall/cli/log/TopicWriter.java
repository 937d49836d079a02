package io.podfall.cli.log;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Appends events to a topic as the services do: binary mode, keyed by namespace, in the given order. */
public final class TopicWriter implements AutoCloseable {
    private final String bootstrap;
    private final String topic;
    private final KafkaProducer<String, byte[]> producer;

    public TopicWriter(String bootstrap, String topic) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true),
                new StringSerializer(),
                new ByteArraySerializer());
    }

    /** Creates the topic with one partition (as a service does when it is missing) unless it exists. */
    public void createTopicIfMissing() throws InterruptedException, TimeoutException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty())))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException(
                        "cannot create topic " + topic + ": " + e.getCause().getMessage(), e);
            }
        }
    }

    /** Sends every event and waits until the broker has them all. */
    public void append(List<Event> events) {
        List<Future<RecordMetadata>> sent = new ArrayList<>(events.size());
        for (Event e : events) {
            ProducerRecord<String, byte[]> r = new ProducerRecord<>(topic, e.partitionKey(), EventCodec.value(e));
            EventCodec.headers(e).forEach(h -> r.headers().add(new RecordHeader(h.getKey(), h.getValue())));
            sent.add(producer.send(r));
        }
        producer.flush();
        for (Future<RecordMetadata> f : sent) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while appending to " + topic, e);
            } catch (ExecutionException e) {
                throw new IllegalStateException(
                        "cannot append to " + topic + ": " + e.getCause().getMessage(), e);
            }
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
