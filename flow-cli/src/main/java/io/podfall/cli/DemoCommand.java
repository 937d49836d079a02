package io.podfall.cli;

import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.cli.scenario.PodDeletion;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description =
                "Against a running suite: create a pod, delete it gracefully, print the deletion's events as a timeline.")
final class DemoCommand implements Callable<Integer> {
    @Option(
            names = "--server",
            defaultValue = "http://127.0.0.1:8080",
            description = "API server (default: ${DEFAULT-VALUE})")
    String server;

    @Mixin
    LogOptions log;

    @Option(names = "--namespace", defaultValue = "default")
    String namespace;

    @Option(names = "--name", description = "pod name (default: demo-<time>)")
    String name;

    @Option(
            names = "--grace-period",
            defaultValue = "5",
            description = "grace period of the delete, in seconds (default: ${DEFAULT-VALUE})")
    long grace;

    @Option(
            names = "--exit-delay",
            defaultValue = "1",
            description = "seconds the process takes to exit after SIGTERM (default: ${DEFAULT-VALUE})")
    double exitDelay;

    /** The demo with its defaults, against the suite {@code up} just started. */
    static DemoCommand against(String server, String bootstrap, String topic) {
        DemoCommand demo = new DemoCommand();
        demo.server = server;
        demo.log = new LogOptions();
        demo.log.bootstrap = bootstrap;
        demo.log.topic = topic;
        demo.namespace = "default";
        demo.grace = 5;
        demo.exitDelay = 1;
        return demo;
    }

    @Override
    public Integer call() {
        String pod = name != null ? name : "demo-" + Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36);
        // Run right after the suite is up, the first call may find the API server still rebuilding: it waits.
        ApiClient api = new ApiClient(server, waiting -> System.err.println("podfall: " + waiting));
        String uid = new PodDeletion(api, System.out)
                .run(
                        namespace,
                        pod,
                        grace,
                        Map.of("podfall.io/exit-delay-seconds", Double.toString(exitDelay)),
                        Duration.ofSeconds(60));
        String subject = Subjects.of(namespace, "pods", pod);
        try (EventLog events = new EventLog(log.bootstrap, log.topic)) {
            List<Event> read = events.readUntil(all -> flowEnded(all, subject), Duration.ofSeconds(30));
            String correlation = Timeline.latestDeletion(read, subject)
                    .orElseThrow(() -> new IllegalStateException("no deletion of " + subject + " on " + log.topic));
            System.out.println();
            System.out.println("The deletion of pod " + namespace + "/" + pod + " (uid " + uid + ") on the log:");
            System.out.print(Timeline.of(read, correlation).render());
        }
        return 0;
    }

    /**
     * Where the demo stops reading: the pod gone from the API server. What follows is the runtime's removal of its
     * sandbox, which a released kubelet leaves to the container GC's next run, up to a minute later
     * ({@code podfall.kubelet.container-gc-period}); it is on the timeline if it came first.
     */
    private static boolean flowEnded(List<Event> events, String subject) {
        return events.stream().anyMatch(e -> e.is(EventTypes.OBJECT_REMOVED) && subject.equals(e.subject()));
    }
}
