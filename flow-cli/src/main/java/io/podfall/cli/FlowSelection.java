package io.podfall.cli;

import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.analysis.TimelineFollower;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * Which flow a command shows: by correlation id, the latest deletion of a pod, or else the latest deletion; for
 * {@code timeline --follow}, which flows it follows.
 */
public final class FlowSelection {
    @ArgGroup
    Choice choice;

    static final class Choice {
        @Option(names = "--correlation", paramLabel = "ID", description = "the flow's correlation id")
        String correlation;

        @Option(names = "--pod", paramLabel = "NS/NAME", description = "the latest deletion of this pod")
        String pod;
    }

    /** The chosen flow's correlation id, which has events in {@code log}. */
    String correlationIn(List<Event> log, String logName) {
        String id;
        if (choice != null && choice.correlation != null) {
            id = choice.correlation;
        } else {
            String subject = podSubject();
            String what = subject == null ? "deletion" : "deletion of " + subject;
            id = Timeline.latestDeletion(log, subject)
                    .orElseThrow(() -> new IllegalStateException("no " + what + " found in " + logName));
        }
        String found = id;
        if (log.stream().noneMatch(e -> e.correlationId().equals(found))) {
            throw new IllegalStateException("no event with correlation id " + id + " in " + logName);
        }
        return id;
    }

    /** What {@code timeline --follow} follows: the chosen correlation, the deletions of the chosen pod, or all. */
    TimelineFollower follower() {
        return choice != null && choice.correlation != null
                ? TimelineFollower.correlation(choice.correlation)
                : TimelineFollower.deletions(podSubject());
    }

    /** The subject of the pod {@code --pod} names; null without {@code --pod}. */
    private String podSubject() {
        if (choice == null || choice.pod == null) {
            return null;
        }
        String[] nsName = choice.pod.split("/", 2);
        if (nsName.length != 2 || nsName[0].isEmpty() || nsName[1].isEmpty()) {
            throw new IllegalArgumentException("--pod takes NAMESPACE/NAME, not " + choice.pod);
        }
        return Subjects.of(nsName[0], "pods", nsName[1]);
    }
}
