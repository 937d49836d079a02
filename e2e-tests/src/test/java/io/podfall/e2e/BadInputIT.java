package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.model.Json;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventCodec;
import io.podfall.model.event.EventTypes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bad input loses nothing and stops nothing: records on the topic that are not events of the contract go to the
 * dead-letter topic with their reason, counted on each service's metrics, while the services go on; request bodies over
 * the API server's limits get a 413 Status and store nothing.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class BadInputIT {
    private static final String POISON_NS = "poison";
    private static final String DLQ = SuiteExtension.TOPIC + ".dlq";
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static Suite suite;
    private static SuiteClient pods;

    @BeforeAll
    static void clients(Suite running) {
        suite = running;
        pods = new SuiteClient(running);
    }

    @Test
    void poisonRecordsAreDeadLetteredWithTheirReasonCountedAndTheServicesGoOn() throws Exception {
        Instant now = Instant.now();
        String subject = "namespaces/" + POISON_NS + "/pods/p";
        byte[] huge = new byte[EventCodec.MAX_DATA_BYTES + 1];
        Arrays.fill(huge, (byte) ' ');
        huge[0] = '{';
        huge[huge.length - 1] = '}';
        try (var producer = new KafkaProducer<>(
                Map.<String, Object>of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        suite.bootstrapServers(),
                        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                        2 * EventCodec.MAX_DATA_BYTES),
                new StringSerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(
                    SuiteExtension.TOPIC, POISON_NS, "{not json".getBytes(StandardCharsets.UTF_8)));
            producer.send(record(event("/apiserver", "apiserver.PodTeleported", subject, now, Map.of()), null));
            producer.send(record(event("/kubelet/node-1", EventTypes.CONTAINER_EXITED, subject, now, Map.of()), null));
            // a fact whose data is not an ObjectChange; a request the API server cannot read is a 400 instead
            producer.send(record(
                    event(
                            "/apiserver",
                            EventTypes.OBJECT_CREATED,
                            subject,
                            now,
                            Map.of("resource", Map.of("not", "a resource"), "object", Map.of())),
                    null));
            producer.send(record(event("/apiserver", EventTypes.CREATION_REQUESTED, subject, now, Map.of()), huge));
            var noSource = record(event("/apiserver", EventTypes.CREATION_REQUESTED, subject, now, Map.of()), null);
            noSource.headers().remove(EventCodec.H_SOURCE);
            producer.send(noSource).get();
        }

        // The services go on: a pod is created and deleted gracefully after the poison.
        pods.createRunning(new PodBuilder()
                .withNewMetadata()
                .withName("after-poison")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build());
        pods.delete("after-poison", 1);
        pods.eventsOf("after-poison", EventTypes.OBJECT_REMOVED, Duration.ofSeconds(60));

        List<String> reasons = deadLetterReasons(6);
        for (String expected : List.of(
                "no ce_specversion header",
                "unknown event type apiserver.PodTeleported",
                "runtime.ContainerExited may not come from /kubelet/node-1",
                "data of apiserver.ObjectCreated does not match its schema",
                "data of 1000001 bytes is over the limit",
                "missing required attribute ce_source")) {
            assertTrue(reasons.stream().anyMatch(r -> r.contains(expected)), expected + " in " + reasons);
        }
        // Each service dead-letters what it reads: the API server does not read its own facts, the controllers do.
        Map<String, String> metrics = new java.util.LinkedHashMap<>();
        for (String service : Suite.SERVICES) {
            metrics.put(
                    service,
                    HTTP.send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                                    + suite.service(service).port() + "/q/metrics"))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body());
        }
        for (String kind : List.of("not-an-event", "unknown-type", "wrong-source", "oversized")) {
            assertTrue(
                    deadLetters(metrics.get("apiserver-svc"), kind) >= 1,
                    kind + " counted on the API server's metrics");
        }
        assertTrue(
                deadLetters(metrics.get("controller-svc"), "bad-data") >= 1,
                "bad-data counted on the controller manager's");
    }

    @Test
    void aBodyOverTheLimitGets413AndAnObjectTooLargeForTheLogIsNotStored() throws Exception {
        HttpResponse<String> tooLong = post("/api/v1/namespaces/default/pods", new byte[4 * 1024 * 1024]);
        assertEquals(413, tooLong.statusCode());
        JsonNode status = Json.read(tooLong.body().getBytes(StandardCharsets.UTF_8));
        assertEquals("Status", status.path("kind").asText(), tooLong.body());
        assertEquals("RequestEntityTooLarge", status.path("reason").asText());

        var big = new PodBuilder()
                .withNewMetadata()
                .withName("too-large")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .addNewEnv()
                .withName("BLOB")
                .withValue("x".repeat(1_200_000))
                .endEnv()
                .endContainer()
                .endSpec()
                .build();
        HttpResponse<String> tooLarge = post("/api/v1/namespaces/default/pods", Json.bytes(big));
        assertEquals(413, tooLarge.statusCode(), tooLarge.body());
        assertTrue(tooLarge.body().contains("as an event on the log; limit is 1000000"), tooLarge.body());
        assertEquals(
                404, pods.api.get("/api/v1/namespaces/default/pods/too-large").code(), "nothing stored");
    }

    private static HttpResponse<String> post(String path, byte[] body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(suite.apiserverUrl() + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static Event event(String source, String type, String subject, Instant at, Object data) {
        return Event.request(java.util.UUID.randomUUID().toString(), source, type, subject, at, null, data);
    }

    private static ProducerRecord<String, byte[]> record(Event e, byte[] value) {
        var r = new ProducerRecord<>(SuiteExtension.TOPIC, POISON_NS, value != null ? value : EventCodec.value(e));
        EventCodec.headers(e).forEach(h -> r.headers().add(h.getKey(), h.getValue()));
        return r;
    }

    /** The dead-letter reasons on the topic, read until at least {@code atLeast} distinct ones are there. */
    private static List<String> deadLetterReasons(int atLeast) {
        List<String> reasons = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(
                Map.<String, Object>of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        suite.bootstrapServers(),
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                        4 * EventCodec.MAX_DATA_BYTES),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            var tp = new TopicPartition(DLQ, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            Instant deadline = Instant.now().plusSeconds(30);
            while (reasons.stream().distinct().count() < atLeast
                    && Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    var h = r.headers().lastHeader("dead-letter-reason");
                    reasons.add(h == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return reasons;
    }

    /** {@code podfall_dead_letters_total{reason="…"}} in Prometheus text, 0 when absent. */
    private static double deadLetters(String metrics, String reason) {
        Matcher m = Pattern.compile(
                        "^podfall_dead_letters_total\\{[^}]*reason=\"" + reason + "\"[^}]*} (\\S+)$", Pattern.MULTILINE)
                .matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
