package io.podfall.cli.analysis;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import io.podfall.model.event.Subjects;
import io.podfall.model.proxy.ServiceRules;
import io.podfall.model.traffic.RequestCounts;
import io.podfall.model.traffic.RequestCounts.EndpointCounts;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Synthetic traffic of one Service ({@code default/web}) for the analysis tests, in the shapes kube-proxy and the
 * clients write: {@code proxy.RulesSynced} and {@code traffic.RequestsCounted}, at milliseconds after
 * {@link PodLog#T0}.
 */
final class TrafficLog {
    static final String SERVICE = Subjects.of("default", "services", "web");
    private int seq;

    /**
     * A node's rules for the Service once a sync ended, holding {@code pods}; in the flow of {@code cause} (the fact it
     * follows), or in a flow of its own when null.
     */
    Event rulesSynced(Event cause, long ms, String node, PodLog... pods) {
        ServiceRules rules = new ServiceRules(
                node,
                "default",
                "web",
                Arrays.stream(pods)
                        .map(p -> new ServiceRules.RuleEndpoint(p.ip, p.name, p.uid, p.node, false))
                        .toList());
        String source = "/proxy/" + node;
        return cause == null
                ? Event.request(
                        "sync-" + node + "-" + seq++,
                        source,
                        EventTypes.PROXY_RULES_SYNCED,
                        SERVICE,
                        PodLog.at(ms),
                        null,
                        rules)
                : Event.causedBy(
                        cause.asCause(),
                        cause.id(),
                        seq++,
                        source,
                        EventTypes.PROXY_RULES_SYNCED,
                        SERVICE,
                        PodLog.at(ms),
                        rules);
    }

    /**
     * A node's counts of the window [{@code fromMs}, {@code toMs}), written when it closed: the endpoints' and, at
     * Service level, their sums plus {@code noEndpoints}.
     */
    Event counted(long fromMs, long toMs, String node, long noEndpoints, EndpointCounts... endpoints) {
        long succeeded = 0;
        Map<String, Long> failed = new TreeMap<>();
        for (EndpointCounts ep : endpoints) {
            succeeded += ep.succeeded();
            ep.failed().forEach((reason, n) -> failed.merge(reason, n, Long::sum));
        }
        if (noEndpoints > 0) {
            failed.put(RequestCounts.NO_ENDPOINTS, noEndpoints);
        }
        return Event.request(
                "count-" + node + "-" + seq++,
                "/traffic/" + node,
                EventTypes.REQUESTS_COUNTED,
                SERVICE,
                PodLog.at(toMs + (toMs - fromMs)),
                null,
                new RequestCounts(
                        node,
                        "default",
                        "web",
                        PodLog.at(fromMs),
                        PodLog.at(toMs),
                        succeeded,
                        failed,
                        List.of(endpoints)));
    }

    /** One endpoint's requests of a window: {@code failed} as reason, count, reason, count… */
    static EndpointCounts endpoint(PodLog pod, long succeeded, Object... failed) {
        Map<String, Long> byReason = new TreeMap<>();
        for (int i = 0; i < failed.length; i += 2) {
            byReason.put((String) failed[i], ((Number) failed[i + 1]).longValue());
        }
        return new EndpointCounts(pod.name, pod.uid, pod.ip, succeeded, byReason);
    }
}
