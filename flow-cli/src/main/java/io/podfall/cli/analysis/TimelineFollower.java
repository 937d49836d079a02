package io.podfall.cli.analysis;

import io.podfall.model.event.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * {@code podfall timeline --follow}: the timeline of flows as their events arrive, a line a step in the format of
 * {@link Timeline#render()}. It is fed the log in order: first what the log held when following began (the history,
 * printed as {@code timeline} would print it: the chosen flow as it stands), then each new event, which prints its step
 * if it belongs to a followed flow, under a {@code flow ID} line whenever the flow changes. A flow is followed from the
 * event that starts it: a client's delete (of the chosen pod, if one is) or the first event of the chosen correlation.
 * It keeps the start of each followed flow (for the offsets) and its {@link Phases} (a step's time since its object's
 * previous boundary), and during the history the events of the latest flow only; columns start wide enough for the
 * usual cells and grow, never shrink, for a wider one.
 */
public final class TimelineFollower {
    /** Phase, component, type and subject widths that fit the steps of a pod deletion. */
    private static final int PHASE = 18;

    private static final int COMPONENT = 14;
    private static final int TYPE = 33;
    private static final int SUBJECT = 30;

    /** Whether an event starts a flow to follow. */
    private final Predicate<Event> starts;
    /** The start of each followed flow, by correlation id: where its offsets count from. */
    private final Map<String, Instant> followed = new HashMap<>();
    /** The phases of each followed flow, folded from all its events (the history's too). */
    private final Map<String, Phases> phases = new HashMap<>();

    private final Timeline.Columns columns = new Timeline.Columns(PHASE, COMPONENT, TYPE, SUBJECT);
    /** During the history: the latest flow, and its events so far with their phase marks. */
    private String latest;

    private final List<Map.Entry<Event, Phases.Mark>> latestEvents = new ArrayList<>();
    private boolean live;
    /** The flow of the last step printed, so a step of another one prints its header first. */
    private String printed;

    private TimelineFollower(Predicate<Event> starts) {
        this.starts = starts;
    }

    /** Every deletion a client asks for, or those of one subject ({@code namespaces/NS/pods/NAME}) unless null. */
    public static TimelineFollower deletions(String subject) {
        return new TimelineFollower(e -> Timeline.isDeletion(e, subject));
    }

    /** The flow of one correlation id. */
    public static TimelineFollower correlation(String id) {
        return new TimelineFollower(e -> e.correlationId().equals(id));
    }

    /** The next event of the log: the lines to print for it, none while the history is read. */
    public List<String> accept(Event e) {
        String flow = e.correlationId();
        boolean isStart = starts.test(e) && !followed.containsKey(flow);
        if (isStart || e.id().equals(flow) && followed.containsKey(flow)) {
            // the request itself sets the start, as in Timeline.of
            followed.put(flow, e.time());
        }
        if (!followed.containsKey(flow)) {
            return List.of();
        }
        Phases.Mark mark = phases.computeIfAbsent(flow, f -> new Phases()).accept(e);
        if (live) {
            return print(e, mark);
        }
        if (isStart
                && (latest == null
                        || e.time().isAfter(latestEvents.get(0).getKey().time()))) {
            latest = flow;
            latestEvents.clear();
        }
        if (flow.equals(latest)) {
            latestEvents.add(Map.entry(e, mark));
        }
        return List.of();
    }

    /** The history is read: the lines of the latest followed flow as it stands; from now on events print. */
    public List<String> caughtUp() {
        live = true;
        List<String> lines = new ArrayList<>();
        latestEvents.forEach(e -> lines.addAll(print(e.getKey(), e.getValue())));
        latestEvents.clear();
        latest = null;
        return lines;
    }

    private List<String> print(Event e, Phases.Mark mark) {
        Timeline.Step step = Timeline.Step.of(e, followed.get(e.correlationId()), mark);
        columns.fit(step);
        List<String> lines = new ArrayList<>(2);
        if (!e.correlationId().equals(printed)) {
            printed = e.correlationId();
            lines.add(Timeline.header(printed));
        }
        lines.add(columns.line(step));
        return lines;
    }
}
