package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.podfall.apiserver.registry.StatusError.FieldError;
import java.util.ArrayList;
import java.util.List;

/** The pod rules of the registry: defaults, create validation and the grace period of a delete. */
final class PodStrategy {
    static final long DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
    /**
     * The condition of a pod about to be disrupted, set by whoever disrupts it (since 1.26, PodDisruptionConditions).
     */
    static final String DISRUPTION_TARGET = "DisruptionTarget";

    private PodStrategy() {}

    /**
     * Defaults ({@code pkg/apis/core/v1/defaults.go} SetDefaults_PodSpec, SetDefaults_Container) and
     * {@code PrepareForCreate} of {@code pkg/registry/core/pod/strategy.go}: whatever status the client sent is
     * replaced by {@code Pending}.
     */
    static void prepareForCreate(Pod pod) {
        applyDefaults(pod);
        PodStatus status = new PodStatus();
        status.setPhase("Pending");
        pod.setStatus(status);
    }

    /** The spec defaults alone: also applied to the object of an update, as upstream decodes every body with them. */
    static void applyDefaults(Pod pod) {
        PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
        pod.setSpec(spec);
        applyDefaults(spec);
    }

    /** SetDefaults_PodSpec and SetDefaults_Container, also run on the pod template of a workload. */
    static void applyDefaults(PodSpec spec) {
        if (spec.getTerminationGracePeriodSeconds() == null) {
            spec.setTerminationGracePeriodSeconds(DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
        }
        if (spec.getRestartPolicy() == null) {
            spec.setRestartPolicy("Always");
        }
        if (spec.getDnsPolicy() == null) {
            spec.setDnsPolicy("ClusterFirst");
        }
        if (spec.getSchedulerName() == null) {
            spec.setSchedulerName("default-scheduler");
        }
        if (spec.getSecurityContext() == null) {
            spec.setSecurityContext(new PodSecurityContext());
        }
        for (Container c : spec.getContainers()) {
            if (c.getTerminationMessagePath() == null) {
                c.setTerminationMessagePath("/dev/termination-log");
            }
            if (c.getTerminationMessagePolicy() == null) {
                c.setTerminationMessagePolicy("File");
            }
            if (c.getImagePullPolicy() == null && c.getImage() != null) {
                c.setImagePullPolicy(isLatest(c.getImage()) ? "Always" : "IfNotPresent");
            }
        }
    }

    /**
     * The spec part of {@code ValidatePodCreate} ({@code pkg/apis/core/validation/validation.go}) that matters here.
     */
    static List<FieldError> validateSpec(Pod pod) {
        return validateSpec(pod.getSpec(), "spec");
    }

    /** The same rules for a pod spec at {@code path} (a workload's {@code spec.template.spec}). */
    static List<FieldError> validateSpec(PodSpec spec, String path) {
        List<FieldError> errors = new ArrayList<>();
        List<Container> containers = spec.getContainers();
        if (containers.isEmpty()) {
            errors.add(FieldError.required(path + ".containers", ""));
        }
        for (int i = 0; i < containers.size(); i++) {
            Container c = containers.get(i);
            if (c.getName() == null || c.getName().isEmpty()) {
                errors.add(FieldError.required(path + ".containers[" + i + "].name", ""));
            }
            if (c.getImage() == null || c.getImage().isBlank()) {
                errors.add(FieldError.required(path + ".containers[" + i + "].image", ""));
            }
        }
        return errors;
    }

    /**
     * {@code CheckGracefulDelete} of {@code pkg/registry/core/pod/strategy.go}: the request's grace period, else the
     * spec's; 0 (delete at once) when the pod was never scheduled, since no kubelet has to stop anything, or when it
     * has already finished.
     */
    static long gracePeriod(Pod pod, Long requested) {
        long period = requested != null
                ? requested
                : pod.getSpec().getTerminationGracePeriodSeconds() != null
                        ? pod.getSpec().getTerminationGracePeriodSeconds()
                        : 0;
        if (pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty()) {
            period = 0;
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
            period = 0;
        }
        return period;
    }

    /**
     * {@code UpdatePodCondition} of {@code pkg/api/v1/pod/util.go}: the condition replaces the one of its type, keeping
     * that one's lastTransitionTime when its status did not change, or is appended.
     */
    static List<PodCondition> withCondition(List<PodCondition> conditions, PodCondition condition) {
        List<PodCondition> updated = new ArrayList<>(conditions);
        for (int i = 0; i < updated.size(); i++) {
            PodCondition old = updated.get(i);
            if (old.getType().equals(condition.getType())) {
                PodCondition next = new PodConditionBuilder(condition).build();
                if (old.getStatus().equals(condition.getStatus())) {
                    next.setLastTransitionTime(old.getLastTransitionTime());
                }
                updated.set(i, next);
                return updated;
            }
        }
        updated.add(condition);
        return updated;
    }

    private static boolean isLatest(String image) {
        String last = image.substring(image.lastIndexOf('/') + 1);
        if (last.contains("@")) {
            return false;
        }
        int colon = last.indexOf(':');
        return colon < 0 || last.substring(colon + 1).equals("latest");
    }
}
