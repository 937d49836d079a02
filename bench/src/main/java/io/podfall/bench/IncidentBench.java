package io.podfall.bench;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.cli.log.EventFile;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.model.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * P3 (b)'s recording: an incident as the live suite runs it over Kafka, for its replay's simulated time over wall time
 * (issue #31). A Deployment of R replicas whose pods keep the default grace period (30 s), with a preStop {@code sleep}
 * of 5 s and a process that takes 10 s to exit on SIGTERM, deleted with {@code --cascade=foreground} while a second
 * Deployment is rolled out (its template changed). The log is recorded from the suite's start until the first
 * Deployment is gone and the second rolled out.
 */
final class IncidentBench {
    static final String WORKLOAD = "p3-incident";
    private static final String INCIDENT = "incident";
    private static final String ROLLOUT = "rollout";

    private IncidentBench() {}

    /** Runs the incident on a suite of its own and records its whole log; the log's file. */
    static Path record(RunOptions run, int replicas, int rolled) {
        Path log = MassDeletionBench.logFile(run, WORKLOAD);
        // the rollout surges a quarter more pods (upstream's maxSurge default): room for them beside the first
        int pods = replicas + rolled + (rolled + 3) / 4;
        int nodes = (pods + MassDeletionBench.PODS_PER_NODE - 1) / MassDeletionBench.PODS_PER_NODE;
        try (BenchSuite suite = BenchSuite.start(run, WORKLOAD, nodes, 1.0, MassDeletionBench.heapMb(pods))) {
            Files.createDirectories(log.getParent());
            try (Writer file = Files.newBufferedWriter(log);
                    TopicTap tap = new TopicTap(suite.bootstrap(), BenchSuite.TOPIC, t -> write(file, t))) {
                Deployments.create(suite, WORKLOAD, incident(replicas));
                Deployments.create(suite, WORKLOAD, Deployments.of(ROLLOUT, rolled));
                ProgressLines.say(
                        "%s: %,d and %,d replicas ready; the rollout and the foreground deletion",
                        WORKLOAD, replicas, rolled);
                roll(suite.api());
                Deployments.deleteForeground(suite.api(), INCIDENT);
                Deployments.awaitRolledOut(suite, WORKLOAD, ROLLOUT, rolled);
                awaitGone(suite, replicas);
                tap.awaitCaughtUp(Duration.ofSeconds(120).plusMillis(5L * pods));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return log;
    }

    /** The incident's Deployment: 30 s of grace, a preStop sleep of 5 s, 10 s to exit on SIGTERM. */
    private static Deployment incident(int replicas) {
        return new DeploymentBuilder(Deployments.of(INCIDENT, replicas))
                .editSpec()
                .editTemplate()
                .editMetadata()
                .addToAnnotations("podfall.io/exit-delay-seconds", "10")
                .endMetadata()
                .editSpec()
                .withTerminationGracePeriodSeconds(30L)
                .editFirstContainer()
                .withNewLifecycle()
                .withNewPreStop()
                .withNewSleep()
                .withSeconds(5L)
                .endSleep()
                .endPreStop()
                .endLifecycle()
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    /** A new template for the second Deployment: {@code kubectl rollout restart} writes the same annotation. */
    private static void roll(ApiClient api) {
        ApiClient.Response patched = api.patch(
                Deployments.PATH + "/" + ROLLOUT,
                Json.read(
                        ("{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/restartedAt\":\""
                                        + Instant.now() + "\"}}}}}")
                                .getBytes(StandardCharsets.UTF_8)));
        if (patched.code() != 200) {
            throw new IllegalStateException("roll " + ROLLOUT + " out: " + patched.code() + " " + patched.body());
        }
    }

    private static void awaitGone(BenchSuite suite, int replicas) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(180).plusMillis(100L * replicas));
        while (suite.api().get(Deployments.PATH + "/" + INCIDENT).code() != 404) {
            suite.checkAlive();
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the Deployment " + INCIDENT + " was not gone by " + deadline);
            }
            ProgressLines.line("%s: waiting for %s to be gone", WORKLOAD, INCIDENT);
            Sleep.millis(500);
        }
    }

    private static void write(Writer file, TopicTap.Tapped t) {
        try {
            EventFile.write(file, t.event());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
