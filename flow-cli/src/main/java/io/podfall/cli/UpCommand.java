package io.podfall.cli;

import io.podfall.cli.launch.ServiceProcess;
import io.podfall.cli.launch.Suite;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "up",
        mixinStandardHelpOptions = true,
        description =
                "Start a Kafka broker (unless --bootstrap names one) and the four services, each a process; stop them all on Ctrl-C.")
final class UpCommand implements Callable<Integer> {
    @Option(names = "--bootstrap", description = "use this Kafka broker instead of starting one")
    String bootstrap;

    @Option(
            names = "--broker-port",
            defaultValue = "9092",
            description = "port of the broker started here (default: ${DEFAULT-VALUE})")
    int brokerPort;

    @Option(
            names = "--port",
            defaultValue = "8080",
            description = "API server port (default: ${DEFAULT-VALUE}, kubectl's default server)")
    int port;

    @Option(
            names = "--topic",
            defaultValue = LiveTopic.OPTION_DEFAULT,
            description = "the event topic (default: ${DEFAULT-VALUE})")
    String topic;

    @Option(
            names = "--time-scale",
            defaultValue = "1",
            description = "simulated seconds per wall second (default: ${DEFAULT-VALUE})")
    double timeScale;

    @Option(
            names = "--work-dir",
            defaultValue = ".podfall",
            description = "broker data and service logs (default: ${DEFAULT-VALUE})")
    Path workDir;

    @Option(
            names = "--demo",
            description =
                    "once healthy, create a pod, delete it and print its deletion's timeline, as `podfall demo` does")
    boolean demo;

    @Option(
            names = "--project",
            defaultValue = ".",
            description = "the podfall checkout whose services to run (default: ${DEFAULT-VALUE})")
    Path project;

    @Override
    public Integer call() throws InterruptedException {
        System.out.println("Starting the suite"
                + (bootstrap == null ? " and a Kafka broker on 127.0.0.1:" + brokerPort : "") + " ...");
        long t0 = System.nanoTime();
        Suite suite = Suite.start(new Suite.Options(
                project.toAbsolutePath(),
                workDir.toAbsolutePath(),
                bootstrap,
                brokerPort,
                port,
                port + 1,
                topic,
                timeScale,
                Duration.ofSeconds(120)));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            System.out.println("\nStopping the suite ...");
                            suite.close();
                            stopped.countDown();
                        },
                        "podfall-stop"));
        System.out.printf("All healthy in %.1f s.%n", (System.nanoTime() - t0) / 1e9);
        System.out.println("  Kafka          " + suite.bootstrapServers() + "  topic " + topic + " (dead letters: "
                + topic + ".dlq)");
        for (ServiceProcess s : suite.services()) {
            System.out.printf(
                    "  %-14s http://127.0.0.1:%d  (log %s)%n",
                    s.name(), s.port(), Path.of("").toAbsolutePath().relativize(s.log()));
        }
        if (timeScale != 1) {
            System.out.println(
                    "  simulated time " + timeScale + "x from " + suite.timeOrigin() + " (replay --live into it: "
                            + "--time-scale " + timeScale + " --time-origin " + suite.timeOrigin() + ")");
        }
        System.out.println("API server: " + suite.apiserverUrl() + "   e.g. kubectl get pods; ./podfall demo");
        if (demo) {
            System.out.println();
            DemoCommand.against(suite.apiserverUrl(), suite.bootstrapServers(), topic)
                    .call();
            System.out.println();
        }
        System.out.println("Press Ctrl-C to stop.");
        stopped.await();
        return 0;
    }
}
