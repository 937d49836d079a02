package io.podfall.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Entry point of the broker's JVM: formats the KRaft storage on first use (as {@code kafka-storage.sh format} does),
 * then runs Apache Kafka's own {@code kafka.Kafka} main with the same properties file.
 */
public final class BrokerMain {
    private BrokerMain() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: BrokerMain <server.properties> <cluster-id>");
            System.exit(2);
        }
        Path config = Path.of(args[0]);
        Properties props = new Properties();
        try (var in = Files.newInputStream(config)) {
            props.load(in);
        }
        if (!Files.exists(Path.of(props.getProperty("log.dirs"), "meta.properties"))) {
            int rc = kafka.tools.StorageTool.execute(
                    new String[] {"format", "--config", config.toString(), "--cluster-id", args[1], "--ignore-formatted"
                    },
                    System.out);
            if (rc != 0) {
                System.err.println("formatting the KRaft storage failed with exit code " + rc);
                System.exit(rc);
            }
        }
        kafka.Kafka.main(new String[] {config.toString()});
    }
}
