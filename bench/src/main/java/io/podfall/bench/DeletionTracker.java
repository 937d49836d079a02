package io.podfall.bench;

import io.podfall.cli.log.EventFile;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * P2's and P4's reader of the log as it is appended, on the reader's thread: writes it to the file and sums up the
 * deletion's flow (every event whose correlation is the DELETE of {@link MassDeletionBench#NAME}'s Deployment) and
 * everything appended from the DELETE on. Its sums are read holding its lock.
 */
final class DeletionTracker {
    private final Writer file;
    private final String deploymentSubject = Subjects.of(Deployments.NAMESPACE, "deployments", MassDeletionBench.NAME);
    private final Random sampling = new Random(1);
    volatile long windowStartMillis = Long.MAX_VALUE;
    private String root;
    long events;
    long flowEvents;
    long flowBytes;
    long podsRemoved;
    long podsCreated;
    final Map<String, Long> flowTypes = new TreeMap<>();
    /** Per millisecond of CreateTime from the DELETE on: {events, bytes}. */
    private final TreeMap<Long, long[]> window = new TreeMap<>();
    /** A uniform sample of the flow's records, the shapes the ceiling sends. */
    final List<ProducerRecord<String, byte[]>> sample = new ArrayList<>();

    DeletionTracker(Writer file) {
        this.file = file;
    }

    synchronized void accept(TopicTap.Tapped t) {
        Event e = t.event();
        events++;
        try {
            EventFile.write(file, e);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        if (t.createTimeMillis() >= windowStartMillis) {
            long[] ms = window.computeIfAbsent(t.createTimeMillis(), k -> new long[2]);
            ms[0]++;
            ms[1] += t.bytes();
        }
        if (root == null
                && t.createTimeMillis() >= windowStartMillis
                && e.is(EventTypes.DELETION_REQUESTED)
                && e.causationId() == null
                && e.subject().equals(deploymentSubject)) {
            root = e.id();
        }
        if (root == null || !root.equals(e.correlationId())) {
            return;
        }
        flowEvents++;
        flowBytes += t.bytes();
        flowTypes.merge(e.type(), 1L, Long::sum);
        boolean pod = e.subject().startsWith("namespaces/" + Deployments.NAMESPACE + "/pods/");
        if (pod && e.is(EventTypes.OBJECT_REMOVED)) {
            podsRemoved++;
        } else if (pod && e.is(EventTypes.CREATION_REQUESTED)) {
            podsCreated++;
        }
        // reservoir sampling: every record of the flow equally likely to be among the 1,000 kept
        if (sample.size() < 1000) {
            sample.add(copy(t));
        } else {
            long slot = (long) (sampling.nextDouble() * flowEvents);
            if (slot < 1000) {
                sample.set((int) slot, copy(t));
            }
        }
    }

    private static ProducerRecord<String, byte[]> copy(TopicTap.Tapped t) {
        return new ProducerRecord<>(
                "ignored",
                null,
                t.record().key(),
                t.record().value(),
                t.record().headers());
    }

    synchronized long[] windowUpTo(long endMillis) {
        long[] sum = new long[2];
        window.headMap(endMillis, true).values().forEach(ms -> {
            sum[0] += ms[0];
            sum[1] += ms[1];
        });
        return sum;
    }

    synchronized long podsRemoved() {
        return podsRemoved;
    }
}
