package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Status;
import io.podfall.model.Json;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * One open watch on one HTTP response: a chunked {@code application/json} body of watch events, one JSON object per
 * line ({@code {"type":"MODIFIED","object":{...}}}), as clients split the stream on newlines.
 *
 * <p>Changes are offered under the log processor's lock and only queued onto the connection's event loop, which encodes
 * and writes them. A client that does not keep up (too many changes queued, or the connection's write buffer full) has
 * its watch closed, as the watch cache closes a watcher whose buffer overflows ({@code cacheWatcher.add} in
 * {@code staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go}): it then lists or watches again from the
 * last resourceVersion it saw.
 */
final class WatchStream implements WatchHub.Watcher {
    /** Changes queued for the event loop beyond which the client counts as too slow. */
    static final int MAX_QUEUED = 10_000;
    /** Bytes the connection may buffer before the client counts as too slow. */
    static final int MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

    private final Context context;
    private final HttpServerResponse response;
    private final WatchFilter filter;
    private final Optional<Tables.Format> table;
    private final Supplier<Instant> now;
    private final WatchHub hub;
    private final AtomicInteger queued = new AtomicInteger();
    private volatile boolean ended;
    /** Event loop only: whether the column definitions went out (with the first Table event). */
    private boolean columnsSent;

    private long timer = -1;

    WatchStream(
            Context context,
            HttpServerResponse response,
            WatchFilter filter,
            Optional<Tables.Format> table,
            Supplier<Instant> now,
            WatchHub hub) {
        this.context = context;
        this.response = response;
        this.filter = filter;
        this.table = table;
        this.now = now;
        this.hub = hub;
    }

    /**
     * On the event loop: sends the headers at once (a client waits for them before it reads), then the events the watch
     * starts with, and closes the stream after {@code timeout}.
     */
    void start(List<WatchEvent> first, Duration timeout) {
        response.setChunked(true).setWriteQueueMaxSize(MAX_BUFFERED_BYTES).putHeader("Content-Type", Responses.JSON);
        response.closeHandler(v -> end());
        response.writeHead();
        first.forEach(this::send);
        timer = context.owner().setTimer(Math.max(1, timeout.toMillis()), id -> end());
    }

    /** On the event loop: a watch that cannot start (410 Expired) is one ERROR event, then the end. */
    void fail(Status status) {
        response.setChunked(true).putHeader("Content-Type", Responses.JSON);
        response.end(Buffer.buffer(errorLine(status)));
        ended = true;
    }

    @Override
    public boolean offer(WatchEvent event) {
        if (ended) {
            return false;
        }
        Optional<WatchEvent> seen = event.seenThrough(filter);
        if (seen.isEmpty()) {
            return true;
        }
        if (queued.incrementAndGet() > MAX_QUEUED) {
            context.runOnContext(v -> end());
            return false;
        }
        context.runOnContext(v -> {
            queued.decrementAndGet();
            if (response.writeQueueFull()) {
                end();
            } else {
                send(seen.get());
            }
        });
        return true;
    }

    private void send(WatchEvent event) {
        if (ended) {
            return;
        }
        response.write(Buffer.buffer(line(event, table, now.get(), !columnsSent)));
        columnsSent = true;
    }

    private void end() {
        if (ended) {
            return;
        }
        ended = true;
        hub.unsubscribe(this);
        context.owner().cancelTimer(timer);
        if (!response.ended() && !response.closed()) {
            response.end();
        }
    }

    /** One event as the line a client reads: the object, or in Table mode a one-row Table of it. */
    static String line(WatchEvent event, Optional<Tables.Format> table, Instant now, boolean withColumns) {
        JsonNode object = table.<JsonNode>map(
                        f -> Tables.watchTable(event.resource(), event.object(), now, f, withColumns))
                .orElse(event.object());
        ObjectNode line = Json.MAPPER.createObjectNode().put("type", event.type());
        line.set("object", object);
        return Json.string(line) + "\n";
    }

    static String errorLine(Status status) {
        ObjectNode line = Json.MAPPER.createObjectNode().put("type", "ERROR");
        line.set("object", Json.tree(status));
        return Json.string(line) + "\n";
    }
}
