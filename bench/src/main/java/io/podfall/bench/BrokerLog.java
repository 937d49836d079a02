package io.podfall.bench;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.common.Node;

/** What the broker holds of a topic, by its own account: partitions, and the bytes of its log segments. */
final class BrokerLog {
    private BrokerLog() {}

    static long bytes(String bootstrap, String topic) {
        Collection<Node> nodes = Admins.call(
                bootstrap, "list the brokers", a -> a.describeCluster().nodes());
        Map<Integer, Map<String, LogDirDescription>> all = Admins.call(
                bootstrap,
                "describe the broker's log dirs",
                a -> a.describeLogDirs(nodes.stream().map(Node::id).toList()).allDescriptions());
        return all.values().stream()
                .flatMap(dirs -> dirs.values().stream())
                .flatMap(dir -> dir.replicaInfos().entrySet().stream())
                .filter(e -> e.getKey().topic().equals(topic))
                .mapToLong(e -> e.getValue().size())
                .sum();
    }

    static int partitions(String bootstrap, String topic) {
        return Admins.call(
                        bootstrap,
                        "describe " + topic,
                        a -> a.describeTopics(List.of(topic)).allTopicNames())
                .get(topic)
                .partitions()
                .size();
    }
}
