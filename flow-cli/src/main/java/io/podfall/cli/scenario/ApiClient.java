package io.podfall.cli.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;

/** The few Kubernetes API calls the scenarios make, in plain HTTP and JSON, as any client would send them. */
public final class ApiClient {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String server;

    public ApiClient(String server) {
        this.server = server;
    }

    public record Response(int code, JsonNode body) {
    }

    public Response post(String path, Object body) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.bytes(body))));
    }

    public Response get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /** A JSON merge patch (RFC 7386): what {@code kubectl patch --type=merge} sends. */
    public Response patch(String path, Object mergePatch) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/merge-patch+json")
                .method("PATCH", HttpRequest.BodyPublishers.ofByteArray(Json.bytes(mergePatch))));
    }

    public Response delete(String path, Object deleteOptions) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .method("DELETE", HttpRequest.BodyPublishers.ofByteArray(Json.bytes(deleteOptions))));
    }

    /** Polls {@code GET path} until {@code done} holds for the response; fails after {@code timeout}. */
    public Response await(String path, Predicate<Response> done, Duration timeout, String what) {
        Instant deadline = Instant.now().plus(timeout);
        Response last = null;
        while (Instant.now().isBefore(deadline)) {
            last = get(path);
            if (done.test(last)) {
                return last;
            }
            sleep();
        }
        throw new IllegalStateException("timed out after " + timeout + " waiting for " + what + "; last answer "
                + (last == null ? "none" : last.code() + " " + last.body()));
    }

    private Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<byte[]> r = http.send(request.timeout(Duration.ofSeconds(40)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            JsonNode body = r.body().length == 0 ? Json.MAPPER.nullNode() : Json.read(r.body());
            return new Response(r.statusCode(), body);
        } catch (IOException e) {
            throw new IllegalStateException("cannot reach the API server at " + server + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private URI uri(String path) {
        return URI.create(server + path);
    }

    private static void sleep() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
