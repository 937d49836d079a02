package io.podfall.adapter;

import com.sun.management.OperatingSystemMXBean;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.kafka.KafkaConsumerRebalanceListener;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Default;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * Where this service is in the log, per partition, and whether it has caught up with what was on the log when it
 * started (the end offsets at assignment). Until then the service is rebuilding its state, not live.
 *
 * <p>Offsets are never committed (the state is in memory and rebuilt from the start of the log), so after a rebalance
 * the consumer would start a partition over; for a partition this process has already read, the consumer is moved back
 * to where it was, and any record at or below the processed offset is skipped: a redelivery changes nothing.
 */
@ApplicationScoped
@Default
@Identifier("podfall-log-position")
public class LogPosition implements KafkaConsumerRebalanceListener {
    private static final Logger LOG = Logger.getLogger(LogPosition.class);

    private final Map<TopicPartition, Long> processed = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> catchUpEnd = new ConcurrentHashMap<>();
    private volatile boolean assigned;
    /** The records there were to rebuild from, and when the rebuild started: for the caught-up line's figures. */
    private long toRebuild;

    private long rebuildStart;
    private long rebuildStartCpu;
    private volatile boolean caughtUp;
    private volatile Runnable onCaughtUp = () -> {};

    /**
     * Runs {@code callback} when the service catches up, or now if it has already (the processor may be created after
     * an empty log was assigned). It may run twice in a race, so it must be idempotent.
     */
    void onCaughtUp(Runnable callback) {
        this.onCaughtUp = callback;
        if (caughtUp) {
            callback.run();
        }
    }

    @Override
    public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        if (caughtUp) {
            // Already live: resume partitions we had, and read new ones from the start (their state is new to us).
            partitions.forEach(tp -> {
                Long done = processed.get(tp);
                if (done != null) {
                    consumer.seek(tp, done + 1);
                }
            });
            return;
        }
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions);
        consumer.endOffsets(partitions).forEach((tp, end) -> {
            long first = begin.getOrDefault(tp, 0L);
            if (end > first) {
                catchUpEnd.put(tp, end);
                toRebuild += end - first;
            }
        });
        rebuildStart = System.nanoTime();
        rebuildStartCpu = processCpuNanos();
        assigned = true;
        LOG.infof("Rebuilding state from the log: %s", catchUpEnd.isEmpty() ? "log is empty" : catchUpEnd);
        checkCaughtUp();
    }

    /** Whether the record at {@code offset} was handled already (this is a redelivery). */
    boolean alreadyProcessed(TopicPartition tp, long offset) {
        Long done = processed.get(tp);
        return done != null && offset <= done;
    }

    /** Records that the record at {@code offset} has been handled; may make the service live. */
    void processed(TopicPartition tp, long offset) {
        processed.merge(tp, offset, Math::max);
        if (!caughtUp) {
            Long end = catchUpEnd.get(tp);
            if (end != null && offset + 1 >= end) {
                catchUpEnd.remove(tp);
                checkCaughtUp();
            }
        }
    }

    public boolean isCaughtUp() {
        return caughtUp;
    }

    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : 0;
    }

    private void checkCaughtUp() {
        synchronized (this) {
            if (caughtUp || !assigned || !catchUpEnd.isEmpty()) {
                return;
            }
            caughtUp = true;
        }
        long millis = (System.nanoTime() - rebuildStart) / 1_000_000;
        // The figures scripts/bench-rebuild reads: how fast the service folds the log, and the CPU time the process
        // took for it (every thread, the JIT compiler's too), which a loaded machine disturbs less.
        LOG.infof(
                "Caught up with the log: %d records in %d ms (%d records/s), CPU %d ms: live",
                toRebuild,
                millis,
                millis == 0 ? toRebuild : toRebuild * 1000 / millis,
                (processCpuNanos() - rebuildStartCpu) / 1_000_000);
        // Outside the monitor: the callback takes the processor's lock, which a consuming thread may hold.
        onCaughtUp.run();
    }
}
