package io.podfall.cli;

import io.podfall.cli.analysis.Timeline;
import io.podfall.cli.analysis.TimelineFollower;
import io.podfall.model.event.Event;
import io.podfall.model.event.Subjects;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * Which flow a command shows: by correlation id, the latest deletion of a pod or a Deployment (its cascade shares the
 * correlation of kubectl's request), or else the latest deletion; for {@code timeline --follow}, which flows it
 * follows.
 */
public final class FlowSelection {
    @ArgGroup
    Choice choice;

    static final class Choice {
        @Option(names = "--correlation", paramLabel = "ID", description = "the flow's correlation id")
        String correlation;

        @Option(
                names = "--pod",
                paramLabel = "NS/NAME",
                converter = NamespacedName.Converter.class,
                description = "the latest deletion of this pod")
        NamespacedName pod;

        @Option(
                names = "--deployment",
                paramLabel = "NS/NAME",
                converter = NamespacedName.Converter.class,
                description = "the latest deletion of this Deployment, with its cascade to ReplicaSets and pods")
        NamespacedName deployment;
    }

    /** NAMESPACE/NAME; anything else is a usage error (exit 2). */
    record NamespacedName(String namespace, String name) {
        static final class Converter implements ITypeConverter<NamespacedName> {
            @Override
            public NamespacedName convert(String value) {
                String[] nsName = value.split("/", 2);
                if (nsName.length != 2 || nsName[0].isEmpty() || nsName[1].isEmpty()) {
                    throw new TypeConversionException("NAMESPACE/NAME expected, not " + value);
                }
                return new NamespacedName(nsName[0], nsName[1]);
            }
        }
    }

    /** The chosen flow's correlation id, which has events in {@code log}. */
    String correlationIn(List<Event> log, String logName) {
        String id;
        if (choice != null && choice.correlation != null) {
            id = choice.correlation;
        } else {
            String subject = subject();
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
                : TimelineFollower.deletions(subject());
    }

    /** The subject of the object {@code --pod} or {@code --deployment} names; null without either. */
    private String subject() {
        if (choice == null || (choice.pod == null && choice.deployment == null)) {
            return null;
        }
        return choice.pod != null
                ? Subjects.of(choice.pod.namespace(), "pods", choice.pod.name())
                : Subjects.of(choice.deployment.namespace(), "deployments", choice.deployment.name());
    }
}
