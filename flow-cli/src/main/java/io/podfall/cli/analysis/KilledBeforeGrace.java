package io.podfall.cli.analysis;

import io.podfall.cli.analysis.Check.Finding;
import io.podfall.cli.analysis.Check.Level;
import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.kubelet.ContainerProbeFailure;
import io.podfall.model.kubelet.GracePeriodShortened;
import io.podfall.model.kubelet.PodTermination;
import io.podfall.model.runtime.ContainerSignal;
import io.podfall.model.runtime.StopContainer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code killed-before-grace}: a container got SIGKILL before the pod's grace period ran out: before the kubelet's
 * deadline (from PodTerminationStarted, or the latest GracePeriodShortened), else before its StopContainer timeout. The
 * kubelet rounds the seconds left up, so a correct kill is never early. A container the kubelet killed because it
 * failed a liveness or startup probe (ContainerProbeFailed) is owed that kill's grace period, the probe's own when it
 * has one, even if the pod began terminating meanwhile: the runtime kills at the earlier of the two deadlines.
 */
final class KilledBeforeGrace {
    private KilledBeforeGrace() {}

    /** When the grace period runs out, and the event that says so. */
    private record Limit(Event by, Instant due) {}

    static List<Finding> of(List<Event> log) {
        Map<String, Limit> deadlines = new HashMap<>();
        Map<String, Limit> stops = new HashMap<>();
        Map<String, Limit> probeKills = new HashMap<>();
        List<Finding> out = new ArrayList<>();
        for (Event e : log) {
            switch (e.type()) {
                case EventTypes.POD_TERMINATION_STARTED -> {
                    PodTermination t = e.data(PodTermination.class);
                    deadlines.put(t.podUid(), new Limit(e, t.deadline()));
                }
                case EventTypes.GRACE_PERIOD_SHORTENED -> {
                    GracePeriodShortened s = e.data(GracePeriodShortened.class);
                    deadlines.put(s.podUid(), new Limit(e, s.deadline()));
                }
                case EventTypes.STOP_CONTAINER_REQUESTED -> {
                    StopContainer s = e.data(StopContainer.class);
                    stops.put(
                            s.podUid() + "/" + Check.container(s.containerId(), s.containerName()),
                            new Limit(e, e.time().plusSeconds(s.timeoutSeconds())));
                }
                case EventTypes.CONTAINER_PROBE_FAILED -> {
                    ContainerProbeFailure f = e.data(ContainerProbeFailure.class);
                    probeKills.put(
                            f.podUid() + "/" + Check.container(f.containerId(), f.containerName()),
                            new Limit(e, e.time().plusSeconds(f.gracePeriodSeconds())));
                }
                case EventTypes.CONTAINER_SIGNALLED -> {
                    ContainerSignal s = e.data(ContainerSignal.class);
                    if (!DeletionFlow.isKill(s)) {
                        continue;
                    }
                    Limit limit =
                            probeKills.get(s.podUid() + "/" + Check.container(s.containerId(), s.containerName()));
                    if (limit == null) {
                        limit = deadlines.get(s.podUid());
                    }
                    if (limit == null) {
                        limit = stops.get(s.podUid() + "/" + Check.container(s.containerId(), s.containerName()));
                    }
                    if (limit != null && e.time().isBefore(limit.due())) {
                        out.add(new Finding(
                                Level.ERROR,
                                "killed-before-grace",
                                e.subject(),
                                "container " + s.containerName() + " got SIGKILL at " + e.time() + ", "
                                        + Duration.between(e.time(), limit.due())
                                                .toMillis()
                                        + " ms before the grace period ran out (" + limit.due() + ", from "
                                        + limit.by().type() + ")",
                                List.of(e.id(), limit.by().id())));
                    }
                }
                default -> {}
            }
        }
        return out;
    }
}
