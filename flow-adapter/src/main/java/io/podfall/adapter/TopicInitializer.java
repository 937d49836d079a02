package io.podfall.adapter;

import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Creates the event topic and its dead-letter topic if they do not exist, before anything consumes: a topic
 * auto-created by the first consumer would start with a default partition count.
 */
@ApplicationScoped
public class TopicInitializer {
    private static final Logger LOG = Logger.getLogger(TopicInitializer.class);

    void onStart(
            @Observes @Priority(1) StartupEvent ev,
            @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap,
            @ConfigProperty(name = "podfall.topic") String topic,
            @ConfigProperty(name = "podfall.partitions") int partitions) {
        ensureTopics(bootstrap, topic, partitions);
    }

    public static void ensureTopics(String bootstrap, String topic, int partitions) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            for (NewTopic t :
                    List.of(new NewTopic(topic, partitions, (short) 1), new NewTopic(topic + ".dlq", 1, (short) 1))) {
                try {
                    admin.createTopics(List.of(t)).all().get(30, TimeUnit.SECONDS);
                    LOG.infof("Created topic %s with %d partition(s)", t.name(), t.numPartitions());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException(
                                "cannot create topic " + t.name() + " on " + bootstrap, e.getCause());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no Kafka broker answered at " + bootstrap + " within 30 s", e);
        }
    }
}
