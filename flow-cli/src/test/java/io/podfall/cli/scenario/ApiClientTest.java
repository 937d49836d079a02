package io.podfall.cli.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client's first contact with an API server that is still rebuilding its state from the log. */
class ApiClientTest {
    private static final String REBUILDING = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
            + "\"message\":\"the API server is rebuilding its state from the log; try again shortly\","
            + "\"reason\":\"ServiceUnavailable\",\"details\":{\"retryAfterSeconds\":1},\"code\":503}";
    private static final String TOO_MANY = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
            + "\"message\":\"Too many requests, please try again later.\",\"reason\":\"TooManyRequests\","
            + "\"details\":{\"retryAfterSeconds\":1},\"code\":429}";

    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private final List<String> waits = new CopyOnWriteArrayList<>();
    private HttpServer server;

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aCreateAnsweredNotReadyIsSentAgainAfterTheRetryAfterItGivesUntilItIsServed() {
        String server = serve(List.of(
                new Answer(503, REBUILDING),
                new Answer(429, TOO_MANY),
                new Answer(201, "{\"metadata\":{\"uid\":\"u-1\"}}")));
        ApiClient api = new ApiClient(server, waits::add);
        long start = System.nanoTime();

        ApiClient.Response created = api.post("/api/v1/namespaces/default/pods", Map.of("kind", "Pod"));

        assertEquals(201, created.code());
        assertEquals("u-1", created.body().path("metadata").path("uid").asText());
        assertEquals(
                List.of("{\"kind\":\"Pod\"}", "{\"kind\":\"Pod\"}", "{\"kind\":\"Pod\"}"),
                bodies,
                "the same request each time");
        assertTrue(
                Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofSeconds(2)) >= 0,
                "a second's wait after each of the two refusals");
        assertEquals(
                List.of("the API server at " + server + " is not ready (503 the API server is rebuilding its "
                        + "state from the log; try again shortly); waiting up to 60s"),
                waits,
                "said once");
    }

    @Test
    void aServerThatStaysNotReadyEndsTheCallWithWhatItLastSaid() {
        ApiClient api = new ApiClient(serve(List.of(new Answer(503, REBUILDING))), Duration.ofSeconds(1), waits::add);

        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> api.get("/api/v1/namespaces/default/pods/web-1"));

        assertTrue(
                e.getMessage()
                        .contains("was not ready within 1s: GET /api/v1/namespaces/default/pods/web-1 "
                                + "last got 503 the API server is rebuilding its state from the log"),
                e.getMessage());
        assertEquals(2, bodies.size(), "the first try, and one more at the deadline");
    }

    @Test
    void anyOtherRefusalIsTheAnswerAtOnce() {
        ApiClient api = new ApiClient(serve(List.of(new Answer(404, "{\"reason\":\"NotFound\",\"code\":404}"))));

        assertEquals(404, api.get("/api/v1/namespaces/default/pods/web-1").code());
        assertEquals(1, bodies.size());
    }

    @Test
    void aServerNobodyListensOnIsNamedWithWhatHappened() throws IOException {
        serve(List.of());
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        ApiClient api = new ApiClient("http://127.0.0.1:" + closed);

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> api.get("/api/v1/namespaces"));
        assertEquals(
                "cannot reach the API server at http://127.0.0.1:" + closed + ": ConnectException", e.getMessage());
    }

    private record Answer(int code, String body) {}

    /** A server that gives the answers in turn, the last one from then on; every refusal asks for one second. */
    private String serve(List<Answer> answers) {
        AtomicInteger next = new AtomicInteger();
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server.createContext("/", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            answer(exchange, answers.get(Math.min(next.getAndIncrement(), answers.size() - 1)));
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static void answer(HttpExchange exchange, Answer answer) throws IOException {
        byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        if (answer.code() == 503 || answer.code() == 429) {
            exchange.getResponseHeaders().add("Retry-After", "1");
        }
        exchange.sendResponseHeaders(answer.code(), body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }
}
