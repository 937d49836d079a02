package io.podfall.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.cli.scenario.ApiClient;
import io.podfall.model.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the API server served of one collection, as a client sees it: a LIST, then a WATCH from the list's
 * resourceVersion, every event kept as it arrives (type, object, uid, resourceVersion) until {@link #close}.
 */
final class Watched implements AutoCloseable {
    /** An object as served: which one and at which resourceVersion. */
    record Served(String uid, String resourceVersion) {}

    /**
     * One watch event: ADDED, MODIFIED or DELETED, of the object {@code namespace/name}, with its
     * deletionGracePeriodSeconds (null when it has none).
     */
    record Change(String type, String key, Served object, Long deletionGracePeriodSeconds) {}

    final String collection;
    /** What the LIST served, by {@code namespace/name}. */
    final Map<String, Served> listed = new LinkedHashMap<>();

    final String listResourceVersion;
    private final List<Change> changes = new ArrayList<>();
    private final InputStream stream;
    private final Thread reader;

    Watched(String server, String collection) {
        this.collection = collection;
        ApiClient.Response list = new ApiClient(server).get(collection);
        assertEquals(200, list.code(), list.body().toString());
        list.body().path("items").forEach(o -> listed.put(key(o), served(o)));
        listResourceVersion =
                list.body().path("metadata").path("resourceVersion").asText();
        try {
            stream = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(
                                            server + collection + "?watch=true&resourceVersion=" + listResourceVersion))
                                    .build(),
                            HttpResponse.BodyHandlers.ofInputStream())
                    .body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        reader = new Thread(this::read, "watch " + collection);
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (!line.isBlank()) {
                    JsonNode event = Json.read(line.getBytes(StandardCharsets.UTF_8));
                    JsonNode o = event.path("object");
                    synchronized (changes) {
                        JsonNode grace = o.path("metadata").path("deletionGracePeriodSeconds");
                        changes.add(new Change(
                                event.path("type").asText(),
                                key(o),
                                served(o),
                                grace.isNumber() ? grace.asLong() : null));
                    }
                }
            }
        } catch (IOException closed) {
            // close() ends the stream
        }
    }

    /** Every event so far, in the order served. */
    List<Change> changes() {
        synchronized (changes) {
            return List.copyOf(changes);
        }
    }

    private static String key(JsonNode o) {
        return o.path("metadata").path("namespace").asText() + "/"
                + o.path("metadata").path("name").asText();
    }

    private static Served served(JsonNode o) {
        return new Served(
                o.path("metadata").path("uid").asText(),
                o.path("metadata").path("resourceVersion").asText());
    }

    @Override
    public void close() {
        try {
            stream.close();
            reader.join(5000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
