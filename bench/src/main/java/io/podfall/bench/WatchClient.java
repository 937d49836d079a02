package io.podfall.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A watch on the API server, as kubectl {@code get -w} opens one: the response stays open and carries one JSON watch
 * event a line; each goes to the sink with the time it was received.
 */
final class WatchClient implements AutoCloseable {
    record Change(String type, JsonNode object, long receivedMicros) {
        String name() {
            return object.path("metadata").path("name").asText();
        }
    }

    private final Thread thread;
    private volatile Stream<String> lines;
    private volatile RuntimeException failure;

    /** Opens the watch ({@code path} with its query, {@code watch=true} added) and returns once it answered 200. */
    WatchClient(HttpClient http, String server, String path, Consumer<Change> sink) {
        URI uri = URI.create(server + path + (path.contains("?") ? "&" : "?") + "watch=true");
        HttpResponse<Stream<String>> response;
        try {
            response = http.send(
                    HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(30))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofLines());
        } catch (IOException e) {
            throw new IllegalStateException("cannot watch " + uri + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (response.statusCode() != 200) {
            response.body().close();
            throw new IllegalStateException("watch " + uri + " answered " + response.statusCode());
        }
        lines = response.body();
        thread = new Thread(
                () -> {
                    try {
                        lines.forEach(line -> {
                            long received = Clock.micros();
                            JsonNode event = Json.read(line.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                            sink.accept(new Change(event.path("type").asText(), event.path("object"), received));
                        });
                    } catch (RuntimeException e) {
                        failure = e;
                    }
                },
                "bench-watch");
        thread.setDaemon(true);
        thread.start();
    }

    void check() {
        if (failure != null) {
            throw new IllegalStateException("the watch failed: " + failure, failure);
        }
    }

    @Override
    public void close() {
        lines.close();
    }
}
