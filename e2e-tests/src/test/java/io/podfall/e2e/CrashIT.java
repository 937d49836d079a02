package io.podfall.e2e;

import static io.podfall.model.event.EventTypes.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.podfall.broker.Broker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.analysis.Check;
import io.podfall.cli.launch.Suite;
import io.podfall.cli.log.EventLog;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.model.event.Event;
import io.podfall.model.k8s.ResourceType;
import io.podfall.replay.Engine;
import io.podfall.replay.Recording;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Crashes while many pods are deleted: a Deployment's pods, over several simulated nodes, are deleted in the foreground
 * while a seeded {@link Random} SIGKILLs one service process after another at random moments and starts it again.
 * Afterwards every flow completed and nothing was done twice: the API server lists none of the round's objects,
 * {@code podfall check} finds no error (no duplicate side effect, no leaked IP or mount, no incomplete deletion) and no
 * leak even as a warning, every sandbox the runtime started is removed and every volume unstaged, no event id is on the
 * topic twice, and the API server's objects are, kind by kind, those the log rebuilds (flow-replay's
 * {@link Engine#fold}, as a restarted API server rebuilds them): the same names, uids and resourceVersions.
 *
 * <p>Settings (system properties): {@code podfall.crash.pods} (100), {@code podfall.crash.faults} per round (4: the
 * first four kill each service once, in a random order), {@code podfall.crash.seed} (printed; give it to replay the
 * same choices of service and moment), {@code soak} (a number of rounds, or a duration such as {@code 30m}: rounds
 * until it has passed; one round without it). Its own suite on its own topic: it kills processes.
 */
@ExtendWith(KafkaBrokerExtension.class)
class CrashIT {
    private static final String TOPIC = "podfall.crash";
    private static final String NS = "/namespaces/default/";
    /** Simulated seconds per wall second: the pods' grace periods, preStop hooks and exits pass ten times faster. */
    private static final double TIME_SCALE = 10;
    /** The longest wait between two faults (after the previous service is ready again). */
    private static final int MAX_FAULT_DELAY_MILLIS = 3000;

    private static final Duration WAIT = Duration.ofMinutes(10);

    /**
     * 100 by default, not the 1,000: on the shared 2-CPU machine a round of 100 already takes 2-3 minutes (each
     * restarted service rebuilds from the whole log); {@code -Dpodfall.crash.pods=1000} by hand or in a soak.
     */
    private final int pods = Integer.getInteger("podfall.crash.pods", 100);
    /**
     * At least four nodes, and enough that each holds at most 100 of the pods: a node takes 110 (the kubelet's
     * --max-pods), and the scheduler leaves the rest Pending.
     */
    private final List<String> nodes = IntStream.rangeClosed(1, Math.max(4, (pods + 99) / 100))
            .mapToObj(i -> "node-" + i)
            .toList();

    private final int faultsPerRound = Integer.getInteger("podfall.crash.faults", 4);
    private final long seed = Long.getLong("podfall.crash.seed", System.nanoTime());
    private final Soak soak = Soak.of(System.getProperty("soak", ""));

    private Suite suite;
    private ApiClient api;

    @Test
    void everyDeletionCompletesOnceAcrossServiceCrashes(Broker broker) throws IOException, InterruptedException {
        System.out.printf(
                "CrashIT: seed %d (replay: -Dpodfall.crash.seed=%d), %d pods, %d faults a round, %s%n",
                seed, seed, pods, faultsPerRound, soak);
        Random random = new Random(seed);
        Totals totals = new Totals();
        Instant started = Instant.now();
        Path work = Files.createTempDirectory("podfall-crash-");
        try (Suite running = Suite.start(
                new Suite.Options(
                        Path.of(System.getProperty("podfall.project.root", "..")),
                        work,
                        broker.bootstrapServers(),
                        0,
                        0,
                        0,
                        TOPIC,
                        TIME_SCALE,
                        Duration.ofSeconds(300)),
                Suite.Tuning.FAST_KUBELET.with(Map.of("podfall.kubelet.nodes", String.join(",", nodes))))) {
            suite = running;
            api = new ApiClient(running.apiserverUrl());
            for (int round = 1; soak.goesOn(round, started); round++) {
                Round r = round(round, random);
                totals.add(r);
                System.out.printf(
                        "CrashIT round %d: %d deletions completed, %d faults injected %s, %d duplicates, "
                                + "%d leaks, %d events on the topic; %s running, %s deleted, %s checked%n",
                        round,
                        r.removed,
                        r.faults.size(),
                        r.faults,
                        r.duplicates,
                        r.leaks,
                        r.events,
                        between(r.started, r.running),
                        between(r.running, r.deleted),
                        between(r.deleted, Instant.now()));
            }
        } finally {
            System.out.printf(
                    "CrashIT summary (seed %d): %d rounds, %d deletions completed, %d faults injected, "
                            + "%d duplicates found, %d leaks found, %s; service logs under %s%n",
                    seed,
                    totals.rounds,
                    totals.deleted,
                    totals.faults,
                    totals.duplicates,
                    totals.leaks,
                    between(started, Instant.now()),
                    work.resolve("logs"));
        }
    }

    private static Duration between(Instant from, Instant to) {
        return Duration.between(from, to).withNanos(0);
    }

    /** One round: the Deployment created and running, deleted in the foreground across faults, then checked. */
    private Round round(int n, Random random) throws InterruptedException {
        Round r = new Round(Instant.now());
        String name = "crash-" + n;
        assertEquals(
                201,
                api.post("/apis/apps/v1" + NS + "deployments", deployment(name)).code());
        api.await(
                "/apis/apps/v1" + NS + "deployments/" + name,
                d -> d.code() == 200
                        && d.body().path("status").path("readyReplicas").asInt() == pods,
                WAIT,
                name + " with " + pods + " ready replicas");
        r.running = Instant.now();

        assertEquals(
                200,
                api.delete(
                                "/apis/apps/v1" + NS + "deployments/" + name,
                                new DeleteOptionsBuilder()
                                        .withPropagationPolicy("Foreground")
                                        .build())
                        .code());
        List<String> order = new ArrayList<>(Suite.SERVICES);
        Collections.shuffle(order, random);
        for (int i = 0; i < faultsPerRound; i++) {
            String service = i < order.size() ? order.get(i) : order.get(random.nextInt(order.size()));
            Thread.sleep(random.nextInt(MAX_FAULT_DELAY_MILLIS));
            suite.service(service).kill();
            r.faults.add(service);
            suite.restart(service);
        }

        String selector = "?labelSelector=app%3D" + name;
        api.await("/apis/apps/v1" + NS + "deployments/" + name, d -> d.code() == 404, WAIT, name + " gone");
        api.await(
                "/apis/apps/v1" + NS + "replicasets" + selector,
                l -> l.code() == 200 && l.body().path("items").isEmpty(),
                WAIT,
                "no ReplicaSet of " + name);
        api.await(
                "/api/v1" + NS + "pods" + selector,
                l -> l.code() == 200 && l.body().path("items").isEmpty(),
                WAIT,
                "no pod of " + name);
        awaitTornDown(name);
        r.deleted = Instant.now();

        List<Listed> lists = Listed.all(api);
        List<Event> log;
        try (EventLog topic = new EventLog(suite.bootstrapServers(), TOPIC)) {
            log = topic.readToEnd(Duration.ofSeconds(60));
        }
        r.events = log.size();
        String replay = " (seed " + seed + ", round " + n + ", faults " + r.faults + "; service logs under "
                + suite.service("apiserver-svc").log().getParent() + ")";

        r.removed = (int) log.stream()
                .filter(e -> e.is(OBJECT_REMOVED) && e.subject().startsWith("namespaces/default/pods/" + name + "-"))
                .count();
        assertEquals(pods, r.removed, "every pod of " + name + " removed once" + replay);

        List<Check.Finding> findings = Check.of(log);
        r.duplicates = (int) findings.stream()
                .filter(f -> f.rule().equals("duplicate-side-effect"))
                .count();
        r.leaks = (int)
                findings.stream().filter(f -> f.rule().endsWith("-leaked")).count();
        List<String> errors = findings.stream()
                .filter(f -> f.level() == Check.Level.ERROR)
                .map(Check.Finding::render)
                .toList();
        assertEquals(List.of(), errors, "podfall check" + replay);
        assertEquals(0, r.leaks, "no leak, not even one the check only warns of" + replay + ": " + findings);

        Map<String, Long> ids = log.stream().collect(Collectors.groupingBy(Event::id, Collectors.counting()));
        List<String> twice = ids.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .toList();
        r.duplicates += twice.size();
        assertEquals(List.of(), twice, "no event appended twice" + replay);

        assertRebuiltStateEqualsServed(log, lists, replay);
        return r;
    }

    /**
     * A Deployment of the round's pods: each with a preStop hook, a process that takes 2 s to exit on SIGTERM and a CSI
     * volume (one claim for all, staged once per node), so hooks, kills and mounts are all in flight when a service
     * dies.
     */
    private Deployment deployment(String name) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withReplicas(pods)
                .withNewSelector()
                .addToMatchLabels("app", name)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", name)
                .addToAnnotations("podfall.io/exit-delay-seconds", "2")
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(10L)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .withNewLifecycle()
                .withNewPreStop()
                .withNewSleep()
                .withSeconds(1L)
                .endSleep()
                .endPreStop()
                .endLifecycle()
                .endContainer()
                .addNewVolume()
                .withName("data")
                .withNewPersistentVolumeClaim()
                .withClaimName(name + "-data")
                .endPersistentVolumeClaim()
                .endVolume()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    /**
     * Waits until the runtime has removed every sandbox of the round's pods (no container, no IP left) and every node
     * has unstaged the round's volume: the steps that come after the pod's removal.
     */
    private void awaitTornDown(String name) {
        String pod = "namespaces/default/pods/" + name + "-";
        Predicate<List<Event>> tornDown = log -> {
            Set<String> sandboxes = new HashSet<>();
            Set<String> devices = new HashSet<>();
            for (Event e : log) {
                if (!e.subject().startsWith(pod)) {
                    continue;
                }
                JsonNode d = e.data();
                String device =
                        d.path("node").asText() + "/" + d.path("volumeId").asText();
                switch (e.type()) {
                    case SANDBOX_STARTED -> sandboxes.add(d.path("sandboxId").asText());
                    case SANDBOX_REMOVED -> sandboxes.remove(d.path("sandboxId").asText());
                    case VOLUME_STAGED -> devices.add(device);
                    case VOLUME_UNSTAGED -> devices.remove(device);
                    default -> {}
                }
            }
            return sandboxes.isEmpty()
                    && devices.isEmpty()
                    && log.stream()
                                    .filter(e ->
                                            e.is(SANDBOX_REMOVED) && e.subject().startsWith(pod))
                                    .count()
                            >= pods;
        };
        try (EventLog topic = new EventLog(suite.bootstrapServers(), TOPIC)) {
            assertTrue(
                    tornDown.test(topic.readUntil(tornDown, WAIT)),
                    "every sandbox of " + name + " removed and its volume unstaged on every node (seed " + seed + ")");
        }
    }

    /**
     * The API server's objects of every kind equal what folding the log rebuilds. Each list is compared with the
     * rebuilt state at the list's resourceVersion: the nodes' Leases and statuses change all the time, so the log is
     * folded up to the very change each list was served at.
     */
    private static void assertRebuiltStateEqualsServed(List<Event> log, List<Listed> lists, String replay) {
        Engine engine = new Engine(Recording.of(log).kubelets());
        Iterator<Event> next = log.iterator();
        for (Listed listed : lists) {
            while (engine.apiServer().resourceVersion() < listed.resourceVersion && next.hasNext()) {
                engine.fold(next.next());
            }
            assertEquals(
                    listed.resourceVersion,
                    engine.apiServer().resourceVersion(),
                    "the log reaches " + listed.type.plural() + "' resourceVersion" + replay);
            assertEquals(
                    listed.objects,
                    Listed.objects(engine.apiServer().list(listed.type, null)),
                    listed.type.plural() + ": served = rebuilt from the log" + replay);
        }
    }

    /**
     * One kind's objects as the API server served them: name → uid and resourceVersion, at the list's resourceVersion.
     */
    private record Listed(ResourceType type, long resourceVersion, Map<String, String> objects) {
        static List<Listed> all(ApiClient api) {
            List<Listed> lists = new ArrayList<>();
            for (ResourceType type : ResourceType.values()) {
                String path = (type.group().isEmpty() ? "/api/" : "/apis/" + type.group() + "/") + type.version() + "/"
                        + type.plural();
                ApiClient.Response list = api.get(path);
                assertEquals(200, list.code(), path + ": " + list.body());
                Map<String, String> objects = new TreeMap<>();
                list.body().path("items").forEach(o -> {
                    JsonNode m = o.path("metadata");
                    objects.put(
                            key(m.path("namespace").asText(""), m.path("name").asText()),
                            identity(
                                    m.path("uid").asText(),
                                    m.path("resourceVersion").asText()));
                });
                lists.add(new Listed(
                        type,
                        Long.parseLong(list.body()
                                .path("metadata")
                                .path("resourceVersion")
                                .asText()),
                        objects));
            }
            return lists;
        }

        static Map<String, String> objects(List<HasMetadata> rebuilt) {
            Map<String, String> objects = new TreeMap<>();
            rebuilt.forEach(o -> objects.put(
                    key(
                            o.getMetadata().getNamespace() == null
                                    ? ""
                                    : o.getMetadata().getNamespace(),
                            o.getMetadata().getName()),
                    identity(o.getMetadata().getUid(), o.getMetadata().getResourceVersion())));
            return objects;
        }

        private static String key(String namespace, String name) {
            return namespace + "/" + name;
        }

        private static String identity(String uid, String resourceVersion) {
            return "uid=" + uid + " rv=" + resourceVersion;
        }
    }

    private static final class Round {
        final Instant started;
        final List<String> faults = new ArrayList<>();
        Instant running;
        Instant deleted;
        int removed;
        int duplicates;
        int leaks;
        int events;

        Round(Instant started) {
            this.started = started;
        }
    }

    private static final class Totals {
        int rounds;
        long deleted;
        long faults;
        long duplicates;
        long leaks;

        void add(Round r) {
            rounds++;
            deleted += r.removed;
            faults += r.faults.size();
            duplicates += r.duplicates;
            leaks += r.leaks;
        }
    }

    /**
     * {@code -Dsoak}: empty (one round), a number of rounds, or a duration ({@code 90s}, {@code 30m}, {@code 2h}) of
     * rounds.
     */
    private record Soak(int rounds, Duration duration) {
        private static final Pattern DURATION = Pattern.compile("(\\d+)([smh])");

        static Soak of(String value) {
            if (value.isBlank()) {
                return new Soak(1, null);
            }
            if (value.chars().allMatch(Character::isDigit)) {
                return new Soak(Integer.parseInt(value), null);
            }
            Matcher m = DURATION.matcher(value);
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return new Soak(
                        0,
                        switch (m.group(2)) {
                            case "s" -> Duration.ofSeconds(n);
                            case "m" -> Duration.ofMinutes(n);
                            default -> Duration.ofHours(n);
                        });
            }
            return new Soak(0, Duration.parse(value));
        }

        boolean goesOn(int round, Instant started) {
            return duration == null
                    ? round <= rounds
                    : round == 1 || Instant.now().isBefore(started.plus(duration));
        }

        @Override
        public String toString() {
            return duration == null ? rounds + " round(s)" : "rounds for " + duration;
        }
    }
}
