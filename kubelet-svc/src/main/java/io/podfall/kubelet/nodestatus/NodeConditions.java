package io.podfall.kubelet.nodestatus;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.podfall.model.k8s.MetaTimes;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The conditions a kubelet reports for its node, as the setters of pkg/kubelet/nodestatus/setters.go write them
 * (MemoryPressureCondition, DiskPressureCondition, PIDPressureCondition, ReadyCondition), in the order upstream's
 * defaultNodeStatusFuncs appends them. A pressure condition is True while the eviction manager sees the node low on its
 * resource ({@code memory}, {@code ephemeral-storage}, {@code pid}); Ready is True while the kubelet runs (podfall has
 * no runtime or network check that could make it False).
 *
 * <p>Times follow the setters: every condition's lastHeartbeatTime is the time of the report; its lastTransitionTime
 * moves only when its status changes. Kubernetes times (metav1.Time) have whole seconds.
 */
public final class NodeConditions {
    public static final String READY = "Ready";
    public static final String MEMORY_PRESSURE = "MemoryPressure";
    public static final String DISK_PRESSURE = "DiskPressure";
    public static final String PID_PRESSURE = "PIDPressure";
    /** The condition that each resource the eviction manager watches turns True. */
    private static final Map<String, String> PRESSURE_CONDITIONS =
            Map.of("memory", MEMORY_PRESSURE, "ephemeral-storage", DISK_PRESSURE, "pid", PID_PRESSURE);

    /** A condition as the kubelet decides it, before it is given its times. */
    public record Reported(String type, String status, String reason, String message) {
        boolean sameAs(NodeCondition stored) {
            return stored != null
                    && type.equals(stored.getType())
                    && status.equals(stored.getStatus())
                    && reason.equals(stored.getReason())
                    && message.equals(stored.getMessage());
        }
    }

    private NodeConditions() {}

    /** What the kubelet reports while its node is under pressure of {@code resource} (or none). */
    public static List<Reported> of(Optional<String> resource) {
        String pressed = resource.map(PRESSURE_CONDITIONS::get).orElse(null);
        return List.of(
                MEMORY_PRESSURE.equals(pressed)
                        ? new Reported(
                                MEMORY_PRESSURE,
                                "True",
                                "KubeletHasInsufficientMemory",
                                "kubelet has insufficient memory available")
                        : new Reported(
                                MEMORY_PRESSURE,
                                "False",
                                "KubeletHasSufficientMemory",
                                "kubelet has sufficient memory available"),
                DISK_PRESSURE.equals(pressed)
                        ? new Reported(DISK_PRESSURE, "True", "KubeletHasDiskPressure", "kubelet has disk pressure")
                        : new Reported(
                                DISK_PRESSURE, "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                PID_PRESSURE.equals(pressed)
                        ? new Reported(
                                PID_PRESSURE,
                                "True",
                                "KubeletHasInsufficientPID",
                                "kubelet has insufficient PID available")
                        : new Reported(
                                PID_PRESSURE,
                                "False",
                                "KubeletHasSufficientPID",
                                "kubelet has sufficient PID available"),
                new Reported(READY, "True", "KubeletReady", "kubelet is posting ready status"));
    }

    /**
     * Whether the API server holds something else than the kubelet reports (a condition missing, or another status,
     * reason or message; the node lifecycle controller's Unknown among them): then the status is posted at once, not
     * only when nodeStatusReportFrequency has passed (kubelet_node_status.go tryUpdateNodeStatus).
     */
    public static boolean differ(List<Reported> reported, List<NodeCondition> stored) {
        return reported.stream().anyMatch(r -> !r.sameAs(find(stored, r.type())));
    }

    /**
     * The reported conditions as posted at {@code at}, each keeping its stored lastTransitionTime unless its status
     * changed.
     */
    public static List<NodeCondition> at(List<Reported> reported, List<NodeCondition> stored, Instant at) {
        String now = MetaTimes.format(at);
        return reported.stream()
                .map(r -> {
                    NodeCondition before = find(stored, r.type());
                    String transition = before != null
                                    && r.status().equals(before.getStatus())
                                    && before.getLastTransitionTime() != null
                            ? before.getLastTransitionTime()
                            : now;
                    return new NodeConditionBuilder()
                            .withType(r.type())
                            .withStatus(r.status())
                            .withReason(r.reason())
                            .withMessage(r.message())
                            .withLastHeartbeatTime(now)
                            .withLastTransitionTime(transition)
                            .build();
                })
                .toList();
    }

    /** The condition of a type among the stored ones, or null. */
    public static NodeCondition find(List<NodeCondition> conditions, String type) {
        return conditions == null
                ? null
                : conditions.stream()
                        .filter(c -> Objects.equals(type, c.getType()))
                        .findFirst()
                        .orElse(null);
    }
}
