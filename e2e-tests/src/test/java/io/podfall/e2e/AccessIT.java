package io.podfall.e2e;

import static io.podfall.e2e.SuiteClient.first;
import static io.podfall.model.event.EventTypes.ACCESS_DENIED;
import static io.podfall.model.event.EventTypes.OBJECT_REMOVED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.podfall.broker.KafkaBroker;
import io.podfall.broker.KafkaBrokerExtension;
import io.podfall.cli.launch.Suite;
import io.podfall.e2e.clients.Command;
import io.podfall.e2e.clients.Kubectl;
import io.podfall.model.event.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The API server with a token file and ABAC policies, driven by kubectl with {@code --token}: a call without a token
 * gets 401, a delete the policies do not allow gets 403 in kube-apiserver's words, and both refusals are on the log as
 * {@code apiserver.AccessDenied} while the pod runs on; the user the policies allow deletes it. kubectl sends
 * credentials only over TLS, so the API server also serves HTTPS here, with a certificate made by keytool.
 */
@ExtendWith({KafkaBrokerExtension.class, SuiteExtension.class})
class AccessIT {
    private static final String POD = "access-web";
    private static Suite suite;
    private static SuiteClient pods;
    private static Kubectl client;

    @BeforeAll
    static void apiServerWithAccessControl(Suite running) throws IOException {
        assumeTrue(Kubectl.SYSTEM != null, "kubectl is not on this machine");
        suite = running;
        pods = new SuiteClient(running);
        Path dir = Files.createTempDirectory("podfall-access-");
        Path keyStore = dir.resolve("apiserver.p12");
        Command.Result keytool = Command.run(
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-keystore",
                        keyStore.toString(),
                        "-storetype",
                        "PKCS12",
                        "-storepass",
                        "changeit",
                        "-alias",
                        "apiserver",
                        "-keyalg",
                        "RSA",
                        "-dname",
                        "CN=127.0.0.1",
                        "-ext",
                        "san=ip:127.0.0.1",
                        "-validity",
                        "1"),
                Map.of(),
                null,
                60);
        assertEquals(0, keytool.exitCode(), keytool.toString());
        int httpsPort = KafkaBroker.freePort();
        client = new Kubectl(Kubectl.SYSTEM, "https://127.0.0.1:" + httpsPort);
        Path tokens = Files.writeString(dir.resolve("tokens.csv"), """
                alice-token,alice,1001,"admins"
                bob-token,bob,1002
                """);
        Path policy = Files.writeString(dir.resolve("abac.jsonl"), """
                {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"admins","namespace":"*","resource":"*","apiGroup":"*","nonResourcePath":"*"}}
                {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"*","readonly":true,"namespace":"*","resource":"*","apiGroup":"*","nonResourcePath":"*"}}
                """);
        suite.restart(
                "apiserver-svc",
                Map.of(
                        "podfall.apiserver.token-auth-file",
                        tokens.toString(),
                        "podfall.apiserver.authorization-policy-file",
                        policy.toString(),
                        "quarkus.http.ssl-port",
                        String.valueOf(httpsPort),
                        "quarkus.http.ssl.certificate.key-store-file",
                        keyStore.toString(),
                        "quarkus.http.ssl.certificate.key-store-password",
                        "changeit"));
    }

    @AfterAll
    static void openApiServer() {
        if (suite != null) {
            suite.restart("apiserver-svc");
        }
    }

    @Test
    void refusedDeletesAreAnsweredAsKubeApiserverDoesAndRecordedOnTheLog() throws InterruptedException {
        Command.Result created = kubectl("--token", "alice-token", "run", POD, "--image=nginx", "--restart=Never");
        assertEquals(0, created.exitCode(), created.toString());
        awaitPhase("Running");

        // kubectl asks for a user name at a 401 rather than send a DELETE without credentials: a plain client does.
        var anonymous = pods.api.delete("/api/v1/namespaces/default/pods/" + POD, Map.of());
        assertEquals(401, anonymous.code());
        assertEquals(
                "Unauthorized",
                anonymous.body().path("reason").asText(),
                anonymous.body().toString());

        Command.Result bob = kubectl("--token", "bob-token", "delete", "pod", POD, "--wait=false");
        assertNotEquals(0, bob.exitCode());
        assertTrue(
                bob.toString()
                        .contains("pods \"" + POD + "\" is forbidden: User \"bob\" cannot delete resource "
                                + "\"pods\" in API group \"\" in the namespace \"default\""),
                bob.toString());
        Command.Result bobReads = kubectl("--token", "bob-token", "get", "pod", POD, "-o", "jsonpath={.status.phase}");
        assertEquals("Running", bobReads.stdout().trim(), "a readonly policy still reads; the pod runs on");

        List<Event> denied =
                pods.eventsOf(POD).stream().filter(e -> e.is(ACCESS_DENIED)).toList();
        assertEquals(2, denied.size(), denied.toString());
        assertEquals(401, denied.get(0).data().path("status").path("code").asInt());
        assertTrue(denied.get(0).data().path("user").isMissingNode()
                || denied.get(0).data().path("user").isNull());
        assertEquals("bob", denied.get(1).data().path("user").asText());
        assertEquals("delete", denied.get(1).data().path("verb").asText());
        assertEquals(403, denied.get(1).data().path("status").path("code").asInt());

        Command.Result alice = kubectl("--token", "alice-token", "delete", "pod", POD, "--grace-period=1");
        assertEquals(0, alice.exitCode(), alice.toString());
        first(pods.eventsOf(POD, OBJECT_REMOVED, Duration.ofSeconds(60)), OBJECT_REMOVED, null);
    }

    /** kubectl against the HTTPS port, trusting its self-signed certificate. */
    private static Command.Result kubectl(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "--insecure-skip-tls-verify";
        System.arraycopy(args, 0, all, 1, args.length);
        return client.run(all);
    }

    private static void awaitPhase(String phase) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(60);
        String last = "";
        while (Instant.now().isBefore(deadline)) {
            last = kubectl("--token", "alice-token", "get", "pod", POD, "-o", "jsonpath={.status.phase}")
                    .stdout()
                    .trim();
            if (last.equals(phase)) {
                return;
            }
            Thread.sleep(300);
        }
        throw new AssertionError(POD + " not " + phase + " in 60 s; last " + last);
    }
}
