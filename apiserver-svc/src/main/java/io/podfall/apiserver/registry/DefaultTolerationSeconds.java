package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * The DefaultTolerationSeconds admission plugin ({@code plugin/pkg/admission/defaulttolerationseconds/admission.go}),
 * one of kube-apiserver's default mutating plugins: a pod that does not tolerate the node lifecycle controller's
 * {@value #NOT_READY} or {@value #UNREACHABLE} NoExecute taints gets a toleration of each (operator Exists) for
 * {@value #DEFAULT_TOLERATION_SECONDS} s, so that the taint eviction controller deletes it five minutes after its node
 * went down rather than at once. A toleration with that key or none, and effect NoExecute or none, counts as one. Run
 * on a create and on an update of the pod itself, not of a subresource. The plugin's flags
 * ({@code --default-not-ready-toleration-seconds}, {@code --default-unreachable-toleration-seconds}) are not settings
 * here: both stay at their default.
 */
final class DefaultTolerationSeconds {
    static final String NOT_READY = "node.kubernetes.io/not-ready";
    static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    static final long DEFAULT_TOLERATION_SECONDS = 300;
    private static final String NO_EXECUTE = "NoExecute";

    private DefaultTolerationSeconds() {}

    static void admit(Pod pod) {
        List<Toleration> tolerations = new ArrayList<>(pod.getSpec().getTolerations());
        boolean changed = false;
        for (String key : List.of(NOT_READY, UNREACHABLE)) {
            if (tolerations.stream().noneMatch(t -> tolerates(t, key))) {
                tolerations.add(new TolerationBuilder()
                        .withKey(key)
                        .withOperator("Exists")
                        .withEffect(NO_EXECUTE)
                        .withTolerationSeconds(DEFAULT_TOLERATION_SECONDS)
                        .build());
                changed = true;
            }
        }
        if (changed) {
            pod.getSpec().setTolerations(tolerations);
        }
    }

    private static boolean tolerates(Toleration t, String key) {
        return (key.equals(t.getKey()) || isEmpty(t.getKey()))
                && (NO_EXECUTE.equals(t.getEffect()) || isEmpty(t.getEffect()));
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }
}
