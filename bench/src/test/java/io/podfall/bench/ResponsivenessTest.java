package io.podfall.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ResponsivenessTest {
    private HttpServer server;
    /** The client ports the requests came from: one per connection. */
    private final List<Integer> clientPorts = new CopyOnWriteArrayList<>();

    private final Set<String> paths = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            clientPorts.add(exchange.getRemoteAddress().getPort());
            String path = exchange.getRequestURI().getPath();
            paths.add(path);
            if (path.equals("/slow")) {
                Sleep.millis(300);
            }
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(path.equals("/broken") ? 500 : 200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    @Test
    void eachRequestIsTimedOnAConnectionOfItsOwnAndAFailureIsCountedApart() {
        Map<String, Responsiveness.Answers> answers;
        try (Responsiveness probes =
                new Responsiveness(Map.of("fast", uri("/fast"), "slow", uri("/slow"), "broken", uri("/broken")))) {
            Sleep.millis(1_000);
            answers = probes.stop();
        }

        Responsiveness.Answers fast = answers.get("fast");
        assertTrue(fast.micros().n() >= 3, "about one every 100 ms: " + fast);
        assertEquals(0, fast.failed());
        Responsiveness.Answers slow = answers.get("slow");
        assertTrue(slow.micros().n() >= 1, slow.toString());
        assertTrue(slow.micros().p50() >= 300_000, "the server's 300 ms are in every answer's time: " + slow);
        Responsiveness.Answers broken = answers.get("broken");
        assertEquals(0, broken.micros().n(), "a 500 is not an answer");
        assertTrue(broken.failed() >= 1, broken.toString());
        assertEquals(Set.of("/fast", "/slow", "/broken"), paths);
        assertEquals(clientPorts.size(), Set.copyOf(clientPorts).size(), "no connection reused: " + clientPorts);
    }
}
