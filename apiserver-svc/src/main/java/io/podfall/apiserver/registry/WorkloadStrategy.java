package io.podfall.apiserver.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpec;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetSpec;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDeployment;
import io.podfall.apiserver.registry.StatusError.FieldError;
import io.podfall.model.Json;
import io.podfall.model.k8s.LabelSelectors;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The rules of the apps/v1 workloads, Deployments and ReplicaSets ({@code pkg/registry/apps/deployment/strategy.go},
 * {@code pkg/registry/apps/replicaset/strategy.go}, defaults from {@code pkg/apis/apps/v1/defaults.go}, validation from
 * {@code pkg/apis/apps/validation/validation.go}) and their {@code /scale} subresource, an autoscaling/v1 Scale that
 * reads and writes {@code spec.replicas}.
 */
public final class WorkloadStrategy {
    private static final String SCALE_API_VERSION = "autoscaling/v1";
    static final int DEFAULT_REPLICAS = 1;
    static final String DEFAULT_SURGE_AND_UNAVAILABLE = "25%";
    static final int DEFAULT_REVISION_HISTORY_LIMIT = 10;
    static final int DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;

    private WorkloadStrategy() {}

    static boolean isWorkload(ResourceType type) {
        return type == ResourceType.DEPLOYMENTS || type == ResourceType.REPLICASETS;
    }

    /** {@code PrepareForCreate}: defaults, status cleared, generation 1. */
    static void prepareForCreate(HasMetadata object) {
        if (object instanceof Deployment d) {
            d.setStatus(new DeploymentStatus());
        } else if (object instanceof ReplicaSet rs) {
            rs.setStatus(new ReplicaSetStatus());
        }
        applyDefaults(object);
        object.getMetadata().setGeneration(1L);
    }

    /**
     * SetDefaults_Deployment / SetDefaults_ReplicaSet and the pod defaults of the template; applied to every body
     * (upstream decodes each with defaulting), so an update that leaves a field out gets its default again.
     */
    static void applyDefaults(HasMetadata object) {
        if (object instanceof Deployment d) {
            DeploymentSpec spec = d.getSpec() == null ? new DeploymentSpec() : d.getSpec();
            d.setSpec(spec);
            if (spec.getReplicas() == null) {
                spec.setReplicas(DEFAULT_REPLICAS);
            }
            DeploymentStrategy strategy = spec.getStrategy() == null ? new DeploymentStrategy() : spec.getStrategy();
            spec.setStrategy(strategy);
            if (strategy.getType() == null || strategy.getType().isEmpty()) {
                strategy.setType("RollingUpdate");
            }
            if (strategy.getType().equals("RollingUpdate")) {
                RollingUpdateDeployment rolling = strategy.getRollingUpdate() == null
                        ? new RollingUpdateDeployment()
                        : strategy.getRollingUpdate();
                strategy.setRollingUpdate(rolling);
                if (rolling.getMaxUnavailable() == null) {
                    rolling.setMaxUnavailable(new IntOrString(DEFAULT_SURGE_AND_UNAVAILABLE));
                }
                if (rolling.getMaxSurge() == null) {
                    rolling.setMaxSurge(new IntOrString(DEFAULT_SURGE_AND_UNAVAILABLE));
                }
            }
            if (spec.getRevisionHistoryLimit() == null) {
                spec.setRevisionHistoryLimit(DEFAULT_REVISION_HISTORY_LIMIT);
            }
            if (spec.getProgressDeadlineSeconds() == null) {
                spec.setProgressDeadlineSeconds(DEFAULT_PROGRESS_DEADLINE_SECONDS);
            }
            templateDefaults(spec.getTemplate());
        } else if (object instanceof ReplicaSet rs) {
            ReplicaSetSpec spec = rs.getSpec() == null ? new ReplicaSetSpec() : rs.getSpec();
            rs.setSpec(spec);
            if (spec.getReplicas() == null) {
                spec.setReplicas(DEFAULT_REPLICAS);
            }
            templateDefaults(spec.getTemplate());
            // ReplicaSetStatus.replicas has no omitempty upstream: it is always there, 0 at least.
            if (rs.getStatus() != null && rs.getStatus().getReplicas() == null) {
                rs.getStatus().setReplicas(0);
            }
        }
    }

    private static void templateDefaults(PodTemplateSpec template) {
        if (template != null) {
            PodSpec spec = template.getSpec() == null ? new PodSpec() : template.getSpec();
            template.setSpec(spec);
            PodStrategy.applyDefaults(spec);
        }
    }

    /**
     * {@code ValidateDeploymentSpec} / {@code ValidateReplicaSetSpec}, the parts that matter here: replicas not
     * negative, a non-empty selector that selects the template's labels, a valid pod template (a Deployment's with
     * restartPolicy Always).
     */
    static List<FieldError> validate(HasMetadata object) {
        JsonNode spec = Json.tree(object).path("spec");
        List<FieldError> errors = new ArrayList<>();
        int replicas = spec.path("replicas").asInt(0);
        if (replicas < 0) {
            errors.add(FieldError.invalidValue(
                    "spec.replicas", Integer.toString(replicas), "must be greater than or equal to 0"));
        }
        JsonNode selector = spec.path("selector");
        JsonNode labels = spec.path("template").path("metadata").path("labels");
        if (!selector.isObject()) {
            errors.add(FieldError.required("spec.selector", ""));
        } else if (selector.path("matchLabels").size()
                        + selector.path("matchExpressions").size()
                == 0) {
            // The same wording for ReplicaSets upstream.
            errors.add(FieldError.invalidValue(
                    "spec.selector", goLabelSelector(selector), "empty selector is invalid for deployment"));
        } else if (!LabelSelectors.matches(selector, labels)) {
            errors.add(FieldError.invalidValue(
                    "spec.template.metadata.labels", goMap(labels), "`selector` does not match template `labels`"));
        }
        PodTemplateSpec template = object instanceof Deployment d
                ? d.getSpec().getTemplate()
                : ((ReplicaSet) object).getSpec().getTemplate();
        if (template == null || template.getSpec() == null) {
            errors.add(FieldError.required("spec.template", ""));
        } else {
            errors.addAll(PodStrategy.validateSpec(template.getSpec(), "spec.template.spec"));
            String restartPolicy = template.getSpec().getRestartPolicy();
            if (object instanceof Deployment && !"Always".equals(restartPolicy)) {
                errors.add(
                        FieldError.notSupported("spec.template.spec.restartPolicy", restartPolicy, List.of("Always")));
            }
        }
        return errors;
    }

    /**
     * {@code PrepareForUpdate} of the main resource, after the status was taken from storage: a change of the spec (for
     * a Deployment also of its annotations, which it copies to its ReplicaSets) is a new generation, so that
     * controllers can tell it from their own status writes. The selector is immutable in apps/v1.
     */
    static List<FieldError> prepareForUpdate(HasMetadata current, HasMetadata next) {
        applyDefaults(next);
        JsonNode oldTree = Json.tree(current);
        JsonNode newTree = Json.tree(next);
        boolean specChanged = !oldTree.path("spec").equals(newTree.path("spec"));
        boolean annotationsChanged = next instanceof Deployment
                && !Objects.equals(
                        current.getMetadata().getAnnotations(),
                        next.getMetadata().getAnnotations());
        if (specChanged || annotationsChanged) {
            long generation = current.getMetadata().getGeneration() == null
                    ? 0
                    : current.getMetadata().getGeneration();
            next.getMetadata().setGeneration(generation + 1);
        }
        JsonNode oldSelector = oldTree.path("spec").path("selector");
        if (!oldSelector.equals(newTree.path("spec").path("selector"))) {
            return List.of(FieldError.invalidValue(
                    "spec.selector", goLabelSelector(newTree.path("spec").path("selector")), "field is immutable"));
        }
        return List.of();
    }

    /**
     * {@code deploymentStatusStrategy.PrepareForUpdate}: beside the spec, a Deployment's status write keeps its labels;
     * a ReplicaSet's only its spec.
     */
    static void prepareForStatusUpdate(HasMetadata current, HasMetadata next) {
        if (next instanceof Deployment) {
            next.getMetadata().setLabels(current.getMetadata().getLabels());
        }
        applyDefaults(next);
    }

    /**
     * The autoscaling/v1 Scale of a workload ({@code scaleFromDeployment}, {@code scaleFromReplicaSet}): its identity,
     * {@code spec.replicas} (omitted at 0, as its field is omitempty), the observed {@code status.replicas} and the
     * selector as a string.
     */
    public static ObjectNode scale(JsonNode object) {
        ObjectNode scale = Json.MAPPER.createObjectNode().put("kind", "Scale").put("apiVersion", SCALE_API_VERSION);
        ObjectNode meta = scale.putObject("metadata");
        JsonNode m = object.path("metadata");
        for (String field : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
            if (m.hasNonNull(field)) {
                meta.set(field, m.get(field));
            }
        }
        ObjectNode spec = scale.putObject("spec");
        int replicas = object.path("spec").path("replicas").asInt(0);
        if (replicas != 0) {
            spec.put("replicas", replicas);
        }
        scale.putObject("status")
                .put("replicas", object.path("status").path("replicas").asInt(0))
                .put("selector", LabelSelectors.format(object.path("spec").path("selector")));
        return scale;
    }

    /**
     * {@code scaleUpdatedObjectInfo.UpdatedObject}: the workload with the replicas of a Scale written to its
     * {@code /scale}, carrying the Scale's resourceVersion as the update's precondition.
     */
    static HasMetadata scaled(ResourceType type, HasMetadata current, JsonNode scale, String name) {
        if (scale == null || !scale.isObject()) {
            throw StatusError.badRequest("the body of the request must be a JSON object (Scale)");
        }
        String kind = scale.path("kind").asText("");
        if (!kind.isEmpty() && !kind.equals("Scale")) {
            throw StatusError.badRequest("expected input object type to be Scale, but " + kind);
        }
        // The Scale is decoded as autoscaling/v1 (pkg/registry/apps/deployment/storage/storage.go ScaleREST): another
        // version of it is no kind the decoder knows.
        String apiVersion = scale.path("apiVersion").asText("");
        if (!apiVersion.isEmpty() && !apiVersion.equals(SCALE_API_VERSION)) {
            throw StatusError.badRequest("no kind \"Scale\" is registered for version \"" + apiVersion + "\"");
        }
        JsonNode metadata = scale.path("metadata");
        if (!metadata.isMissingNode() && !metadata.isNull()) {
            try {
                // Decoded whole, as upstream decodes the Scale, though only its name and resourceVersion are read.
                Json.convert(metadata, ObjectMeta.class);
            } catch (IllegalArgumentException e) {
                throw StatusError.badRequest("Scale in version \"v1\" cannot be handled as a Scale: " + e.getMessage());
            }
        }
        String scaleName = scale.path("metadata").path("name").asText("");
        if (!scaleName.isEmpty() && !scaleName.equals(name)) {
            throw StatusError.badRequest(
                    "the name of the object (" + scaleName + ") does not match the name on the URL (" + name + ")");
        }
        JsonNode replicasNode = scale.path("spec").path("replicas");
        // Go's decoder takes no fraction into an int32: 1.5 is refused, not truncated to 1.
        if (!replicasNode.isMissingNode()
                && !replicasNode.isNull()
                && !(replicasNode.isIntegralNumber() && replicasNode.canConvertToInt())) {
            throw StatusError.badRequest(
                    "Scale in version \"v1\" cannot be handled as a Scale: spec.replicas: not an integer");
        }
        int replicas = replicasNode.asInt(0);
        if (replicas < 0) {
            throw StatusError.invalid(
                    "Scale.autoscaling",
                    "Scale",
                    "autoscaling",
                    name,
                    List.of(FieldError.invalidValue(
                            "spec.replicas", Integer.toString(replicas), "must be greater than or equal to 0")));
        }
        HasMetadata next = Storage.copy(current);
        if (next instanceof Deployment d) {
            d.getSpec().setReplicas(replicas);
        } else {
            ((ReplicaSet) next).getSpec().setReplicas(replicas);
        }
        String resourceVersion = scale.path("metadata").path("resourceVersion").asText("");
        next.getMetadata().setResourceVersion(resourceVersion.isEmpty() ? null : resourceVersion);
        return next;
    }

    /** Go's {@code %#v} of a label map, as field errors print it: {@code map[string]string{"app":"web"}}. */
    private static String goMap(JsonNode labels) {
        TreeMap<String, String> sorted = new TreeMap<>();
        labels.fields()
                .forEachRemaining(l -> sorted.put(l.getKey(), l.getValue().asText()));
        return sorted.entrySet().stream()
                .map(e -> StatusError.quote(e.getKey()) + ":" + StatusError.quote(e.getValue()))
                .collect(Collectors.joining(", ", "map[string]string{", "}"));
    }

    /** A LabelSelector in a field error: podfall prints its JSON rather than Go's struct dump. */
    private static String goLabelSelector(JsonNode selector) {
        return selector.isMissingNode() ? "null" : selector.toString();
    }
}
