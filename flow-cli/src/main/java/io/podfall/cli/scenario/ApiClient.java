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
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The few Kubernetes API calls the scenarios make, in plain HTTP and JSON, as any client would send them. Like
 * client-go, a call the API server answers 503 (it is still rebuilding its state from the log) or 429 is sent again
 * after the {@code Retry-After} it gives, until the server is ready: so a scenario started right after the suite is up
 * waits for it rather than failing on its first call.
 */
public final class ApiClient {
    /** How long a call waits for the API server to be ready: a rebuild from the log takes seconds. */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    /** The wait when a 503 or 429 says none (or gives a date): client-go's default is one second too. */
    private static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String server;
    private final Duration readyTimeout;
    private final Consumer<String> waiting;

    public ApiClient(String server) {
        this(server, READY_TIMEOUT, what -> {});
    }

    /** @param waiting told, once a call, that the API server is not ready yet and the call waits for it */
    public ApiClient(String server, Consumer<String> waiting) {
        this(server, READY_TIMEOUT, waiting);
    }

    ApiClient(String server, Duration readyTimeout, Consumer<String> waiting) {
        this.server = server;
        this.readyTimeout = readyTimeout;
        this.waiting = waiting;
    }

    public record Response(int code, JsonNode body) {}

    public Response post(String path, Object body) {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.bytes(body))));
    }

    public Response get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /** A JSON merge patch (RFC 7386): what {@code kubectl patch --type=merge} sends. */
    public Response patch(String path, Object mergePatch) {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/merge-patch+json")
                .method("PATCH", HttpRequest.BodyPublishers.ofByteArray(Json.bytes(mergePatch))));
    }

    public Response delete(String path, Object deleteOptions) {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/json")
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
            sleep(Duration.ofMillis(100));
        }
        throw new IllegalStateException("timed out after " + timeout + " waiting for " + what + "; last answer "
                + (last == null ? "none" : last.code() + " " + last.body()));
    }

    /**
     * Sends the request, and again while the API server answers it is not ready (503) or too busy (429), after the wait
     * its {@code Retry-After} asks for; fails when it still does so {@link #readyTimeout} after the first time.
     */
    private Response send(HttpRequest.Builder builder) {
        HttpRequest request = builder.timeout(Duration.ofSeconds(40)).build();
        Instant deadline = null;
        boolean lastTry = false;
        while (true) {
            HttpResponse<byte[]> r = exchange(request);
            JsonNode body = r.body().length == 0 ? Json.MAPPER.nullNode() : Json.read(r.body());
            if (r.statusCode() != 503 && r.statusCode() != 429) {
                return new Response(r.statusCode(), body);
            }
            String said = r.statusCode() + " " + body.path("message").asText(body.toString());
            if (lastTry) {
                throw new IllegalStateException("the API server at " + server + " was not ready within "
                        + readyTimeout.toSeconds() + "s: " + request.method() + " "
                        + request.uri().getPath()
                        + " last got " + said);
            }
            Instant now = Instant.now();
            if (deadline == null) {
                deadline = now.plus(readyTimeout);
                waiting.accept("the API server at " + server + " is not ready (" + said + "); waiting up to "
                        + readyTimeout.toSeconds() + "s");
            }
            Duration remaining = Duration.between(now, deadline);
            Duration wait = retryAfter(r);
            if (wait.compareTo(remaining) >= 0) {
                // A last try at the deadline, rather than none where the server asks for a longer wait.
                wait = remaining.isNegative() ? Duration.ZERO : remaining;
                lastTry = true;
            }
            sleep(wait);
        }
    }

    /** {@code Retry-After} in seconds (RFC 9110); an HTTP-date, or none, is the default wait. */
    private static Duration retryAfter(HttpResponse<?> response) {
        return response.headers()
                .firstValue("Retry-After")
                .filter(s -> s.trim().matches("\\d{1,9}"))
                .map(s -> Duration.ofSeconds(Long.parseLong(s.trim())))
                .orElse(DEFAULT_RETRY_AFTER);
    }

    private HttpResponse<byte[]> exchange(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            // The JDK's ConnectException (nothing listens yet: the suite is still starting) carries no message.
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new IllegalStateException("cannot reach the API server at " + server + ": " + why, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private URI uri(String path) {
        return URI.create(server + path);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
