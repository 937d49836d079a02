package io.podfall.replay;

import io.podfall.controller.ControllerManagerConfiguration;
import io.podfall.model.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A recording replayed against running services rather than in process: its client requests appended to the topic of a
 * suite, at the recorded pace, and what that suite's services appended compared with the recording. This is the part
 * without a broker: which inputs, when each is due, how it is stamped, and the comparison.
 *
 * <p><b>Inputs</b> are the client requests only ({@link Input.Request}, with the nodes' stops and starts of
 * {@code podfall node}, which the target's kubelet of that node acts on): the target suite has started already, and its
 * own start (the system namespaces, its kubelets' nodes) is its own, with the settings it was given. Each keeps its id,
 * so every event derived from it (and every UID) is the recording's, and the comparison can pair them.
 *
 * <p><b>Time.</b> An input is due at its recorded offset from the first input divided by the speed, on the wall clock,
 * and is stamped with the target's clock when it is appended, as the API server's front door stamps a request. The
 * target's services measure everything after it on their own simulated clock ({@code podfall.time-scale} T): inputs
 * appended at speed N land T/N times as far apart in simulated time as they were recorded, so the recorded pace is N =
 * T. A step's delay from its cause is simulated time on both sides, at any speed: the comparison pairs the flows by
 * their requests' ids and measures each step from its cause, as the in-process replay does, with each replayed flow
 * shifted onto its recorded request's time (the publisher's own pacing is not the services' doing). What a changed
 * spacing of the inputs changes downstream (a second DELETE that comes before the first one's kill) shows as
 * divergences.
 */
public final class LiveReplay {
    private LiveReplay() {}

    /** The client requests of the recording at or after {@code since} and, unless null, before {@code until}. */
    public static List<Event> inputs(List<Event> log, Instant since, Instant until) {
        return Recording.of(log).inputs().stream()
                .filter(i -> i instanceof Input.Request)
                .map(i -> ((Input.Request) i).event())
                .filter(e ->
                        !e.time().isBefore(since) && (until == null || e.time().isBefore(until)))
                .toList();
    }

    /**
     * How long after the first input, on the wall clock, an input recorded {@code recordedOffset} after it is due: the
     * offset divided by {@code speed}; at once for speed 0 (as fast as possible).
     */
    public static Duration due(Duration recordedOffset, double speed) {
        if (speed < 0 || Double.isNaN(speed) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("speed must be 0 (as fast as possible) or more, was " + speed);
        }
        return speed == 0 ? Duration.ZERO : Duration.ofNanos(Math.round(recordedOffset.toNanos() / speed));
    }

    /**
     * When the flows the inputs begin should be over on the target's clock, if they go as recorded: each flow's
     * recorded length after its request, from the time its request was appended.
     *
     * @param appended the inputs as appended ({@link Event#at}: ids kept, the target's times), by the ids they kept
     */
    public static Instant expectedEnd(List<Event> recording, List<Event> appended) {
        Map<String, Instant> recordedStart = new HashMap<>();
        Map<String, Instant> recordedEnd = new HashMap<>();
        Set<String> flows = flows(appended);
        for (Event e : recording) {
            if (flows.contains(e.correlationId())) {
                recordedEnd.merge(e.correlationId(), e.time(), (a, b) -> a.isAfter(b) ? a : b);
                if (e.id().equals(e.correlationId())) {
                    recordedStart.put(e.id(), e.time());
                }
            }
        }
        Instant end = Instant.EPOCH;
        for (Event a : appended) {
            Instant start = recordedStart.getOrDefault(a.id(), a.time());
            Instant flowEnd = a.time().plus(Duration.between(start, recordedEnd.getOrDefault(a.id(), start)));
            end = flowEnd.isAfter(end) ? flowEnd : end;
        }
        return end;
    }

    /**
     * The flows of the inputs as the target's services appended them, against the same flows of the recording: the
     * target's own work (its start, its Lease renewals, other clients' requests) is not compared. Each replayed flow is
     * shifted by the difference between its request's recorded time and the time it was appended, so the report reads
     * in the recording's time and a step's delay from its cause is as the target measured it.
     *
     * @param inputs the inputs as recorded
     * @param target the target topic, as it stands
     * @param notes what the report should say first (where the inputs went, at which speed)
     */
    public static Replay compare(
            List<Event> recording, List<Event> inputs, List<Event> target, Duration tolerance, List<String> notes) {
        Set<String> flows = flows(inputs);
        Map<String, Duration> shift = new HashMap<>();
        Map<String, Instant> recordedTime = new HashMap<>();
        inputs.forEach(i -> recordedTime.put(i.id(), i.time()));
        for (Event e : target) {
            if (recordedTime.containsKey(e.id())) {
                shift.putIfAbsent(e.id(), Duration.between(e.time(), recordedTime.get(e.id())));
            }
        }
        List<Event> recorded = recording.stream()
                .filter(e -> flows.contains(e.correlationId()))
                .toList();
        List<Event> replayed = new ArrayList<>();
        for (Event e : target) {
            if (flows.contains(e.correlationId())) {
                replayed.add(e.at(e.time().plus(shift.getOrDefault(e.correlationId(), Duration.ZERO))));
            }
        }
        Recording asInputs = new Recording(
                List.of(),
                ControllerManagerConfiguration.DEFAULTS,
                inputs.stream().<Input>map(Input.Request::new).toList(),
                List.copyOf(notes));
        Instant since = Replay.start(inputs);
        Instant until = Collections.max(List.of(Replay.end(recorded), Replay.end(replayed)));
        return new Replay(
                asInputs,
                since,
                until,
                recorded,
                List.copyOf(replayed),
                Divergences.between(recorded, replayed, tolerance));
    }

    /** The flows the inputs begin: a client request's correlation id is its own id. */
    private static Set<String> flows(List<Event> inputs) {
        Set<String> flows = new HashSet<>();
        inputs.forEach(i -> flows.add(i.correlationId()));
        return flows;
    }
}
