package io.podfall.controller.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * An amount of the two compute resources the scheduler weighs, cpu in millicores and memory in bytes, as upstream's
 * {@code framework.Resource} holds them ({@code MilliCPU}, {@code Memory}: Quantity.MilliValue and Value, both rounded
 * up).
 */
record Resources(long milliCpu, long memory) {
    static final Resources NONE = new Resources(0, 0);

    Resources plus(Resources other) {
        return new Resources(milliCpu + other.milliCpu, memory + other.memory);
    }

    Resources minus(Resources other) {
        return new Resources(milliCpu - other.milliCpu, memory - other.memory);
    }

    Resources max(Resources other) {
        return new Resources(Math.max(milliCpu, other.milliCpu), Math.max(memory, other.memory));
    }

    /**
     * What a pod asks of its node, as upstream's resource helper computes it
     * ({@code staging/src/k8s.io/component-helpers/resource/helpers.go} PodRequests): the sum of the regular
     * containers' requests and the sidecars' (init containers with restartPolicy Always, which run beside them), or, if
     * larger, what the init phase needs at its peak (each regular init container runs alone beside the sidecars started
     * before it), resource by resource; plus the pod's {@code spec.overhead}. A container with a limit and no request
     * asks its limit, as the API server's defaulting stores it ({@code pkg/apis/core/v1/defaults.go} SetDefaults_Pod).
     */
    static Resources podRequests(JsonNode spec) {
        Resources requests = NONE;
        for (JsonNode container : spec.path("containers")) {
            requests = requests.plus(containerRequests(container));
        }
        Resources sidecars = NONE;
        Resources initPeak = NONE;
        for (JsonNode init : spec.path("initContainers")) {
            Resources own = containerRequests(init);
            Resources peak;
            if ("Always".equals(init.path("restartPolicy").textValue())) {
                requests = requests.plus(own);
                sidecars = sidecars.plus(own);
                peak = sidecars;
            } else {
                peak = own.plus(sidecars);
            }
            initPeak = initPeak.max(peak);
        }
        return requests.max(initPeak).plus(of(spec.path("overhead")));
    }

    private static Resources containerRequests(JsonNode container) {
        JsonNode resources = container.path("resources");
        JsonNode requests = resources.path("requests");
        JsonNode limits = resources.path("limits");
        return new Resources(
                milliCpu(requests.has("cpu") ? requests.get("cpu") : limits.get("cpu")),
                bytes(requests.has("memory") ? requests.get("memory") : limits.get("memory")));
    }

    /** The cpu and memory of a ResourceList ({@code requests}, {@code overhead}), 0 for each it lacks. */
    static Resources of(JsonNode resourceList) {
        return new Resources(milliCpu(resourceList.get("cpu")), bytes(resourceList.get("memory")));
    }

    static long milliCpu(JsonNode quantity) {
        return quantity == null || quantity.isNull() ? 0 : scaled(quantity.asText(), BigDecimal.valueOf(1000));
    }

    static long bytes(JsonNode quantity) {
        return quantity == null || quantity.isNull() ? 0 : scaled(quantity.asText(), BigDecimal.ONE);
    }

    /**
     * The quantity in units of 1/{@code factor}, rounded up as Quantity.MilliValue and Value do; one beyond a long is
     * {@link Long#MAX_VALUE}, as large as the scheduler can count.
     */
    static long scaled(String quantity, BigDecimal factor) {
        return Quantity.getAmountInBytes(Quantity.parse(quantity))
                .multiply(factor)
                .setScale(0, RoundingMode.CEILING)
                .min(LONG_MAX)
                .longValue();
    }

    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
}
