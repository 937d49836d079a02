package io.podfall.apiserver.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.podfall.apiserver.registry.StatusError;
import io.podfall.model.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Request bodies in the Kubernetes protobuf encoding, decoded into the JSON the registry reads. kubectl 1.32's typed
 * clients send nothing else for {@code kubectl create namespace}, {@code create service ...} and {@code create
 * deployment} (Content-Type {@code application/vnd.kubernetes.protobuf}), and fall back to JSON neither on a 415 nor by
 * discovery; they accept a JSON answer ({@code Accept} lists {@code application/json}).
 *
 * <p>The envelope ({@code staging/src/k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go}): the magic
 * {@code "k8s\0"}, then a {@code runtime.Unknown} {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding =
 * 3, contentType = 4}; {@code raw} is the object's message. The messages and their field numbers are those of
 * {@code k8s.io/api/core/v1/generated.proto}, {@code apps/v1/generated.proto}, {@code policy/v1/generated.proto} and
 * {@code apimachinery/pkg/apis/meta/v1/generated.proto}, for the kinds and fields those commands use. The Go structs
 * behind them marshal every non-pointer field, zero or not, so a zero scalar is left out of the JSON as Go's
 * {@code omitempty} would, except where the JSON field is a pointer or has no {@code omitempty} ({@code replicas},
 * {@code port}, ...), and a present message is an object even when empty ({@code "status":{}}). A field this decoder
 * does not know is ignored if it holds only zeros, and otherwise refused with 415, so nothing a client sent is silently
 * dropped: it can send the object as JSON instead.
 */
final class KubernetesProtobuf {
    static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
    private static final byte[] MAGIC = {'k', '8', 's', 0};

    private KubernetesProtobuf() {}

    // --- the schema: leaves first ---

    private static final Message TYPE_META = new Message("TypeMeta", string(1, "apiVersion"), string(2, "kind"));
    private static final Message OWNER_REFERENCE = new Message(
            "OwnerReference",
            string(5, "apiVersion"),
            string(1, "kind"),
            string(3, "name"),
            string(4, "uid"),
            pointer(new Field(6, "controller", Type.BOOL)),
            pointer(new Field(7, "blockOwnerDeletion", Type.BOOL)));
    private static final Message OBJECT_META = new Message(
            "ObjectMeta",
            string(1, "name"),
            string(2, "generateName"),
            string(3, "namespace"),
            string(4, "selfLink"),
            string(5, "uid"),
            string(6, "resourceVersion"),
            integer(7, "generation"),
            new Field(8, "creationTimestamp", Type.TIME),
            new Field(9, "deletionTimestamp", Type.TIME),
            pointer(integer(10, "deletionGracePeriodSeconds")),
            new Field(11, "labels", Type.STRING_MAP),
            new Field(12, "annotations", Type.STRING_MAP),
            repeated(message(13, "ownerReferences", OWNER_REFERENCE)),
            repeated(string(14, "finalizers")));

    private static final Message NAMESPACE = new Message(
            "Namespace",
            message(1, "metadata", OBJECT_META),
            message(2, "spec", new Message("NamespaceSpec", repeated(string(1, "finalizers")))),
            message(3, "status", new Message("NamespaceStatus", string(1, "phase"))));

    private static final Message SERVICE_PORT = new Message(
            "ServicePort",
            string(1, "name"),
            string(2, "protocol"),
            string(6, "appProtocol"),
            pointer(integer(3, "port")),
            new Field(4, "targetPort", Type.INT_OR_STRING),
            integer(5, "nodePort"));
    private static final Message SERVICE = new Message(
            "Service",
            message(1, "metadata", OBJECT_META),
            message(
                    2,
                    "spec",
                    new Message(
                            "ServiceSpec",
                            repeated(message(1, "ports", SERVICE_PORT)),
                            new Field(2, "selector", Type.STRING_MAP),
                            string(3, "clusterIP"),
                            repeated(string(18, "clusterIPs")),
                            string(4, "type"),
                            repeated(string(5, "externalIPs")),
                            string(7, "sessionAffinity"),
                            string(8, "loadBalancerIP"),
                            repeated(string(9, "loadBalancerSourceRanges")),
                            string(10, "externalName"),
                            string(11, "externalTrafficPolicy"),
                            integer(12, "healthCheckNodePort"),
                            bool(13, "publishNotReadyAddresses"),
                            repeated(string(19, "ipFamilies")),
                            string(17, "ipFamilyPolicy"),
                            string(22, "internalTrafficPolicy"))),
            message(
                    3,
                    "status",
                    new Message("ServiceStatus", message(1, "loadBalancer", new Message("LoadBalancerStatus")))));

    private static final Message CONTAINER = new Message(
            "Container",
            string(1, "name"),
            string(2, "image"),
            repeated(string(3, "command")),
            repeated(string(4, "args")),
            string(5, "workingDir"),
            repeated(message(
                    6,
                    "ports",
                    new Message(
                            "ContainerPort",
                            string(1, "name"),
                            integer(2, "hostPort"),
                            pointer(integer(3, "containerPort")),
                            string(4, "protocol"),
                            string(5, "hostIP")))),
            repeated(message(7, "env", new Message("EnvVar", string(1, "name"), string(2, "value")))),
            message(
                    8,
                    "resources",
                    new Message(
                            "ResourceRequirements",
                            new Field(1, "limits", Type.QUANTITY_MAP),
                            new Field(2, "requests", Type.QUANTITY_MAP))),
            string(13, "terminationMessagePath"),
            string(20, "terminationMessagePolicy"),
            string(14, "imagePullPolicy"),
            bool(16, "stdin"),
            bool(17, "stdinOnce"),
            bool(18, "tty"));
    private static final Message POD_TEMPLATE_SPEC = new Message(
            "PodTemplateSpec",
            message(1, "metadata", OBJECT_META),
            message(
                    2,
                    "spec",
                    new Message(
                            "PodSpec",
                            repeated(message(2, "containers", CONTAINER)),
                            repeated(message(20, "initContainers", CONTAINER)),
                            string(3, "restartPolicy"),
                            pointer(integer(4, "terminationGracePeriodSeconds")),
                            pointer(integer(5, "activeDeadlineSeconds")),
                            string(6, "dnsPolicy"),
                            new Field(7, "nodeSelector", Type.STRING_MAP),
                            string(8, "serviceAccountName"),
                            string(9, "serviceAccount"),
                            string(10, "nodeName"),
                            bool(11, "hostNetwork"),
                            bool(12, "hostPID"),
                            bool(13, "hostIPC"),
                            message(14, "securityContext", new Message("PodSecurityContext")),
                            repeated(message(
                                    15, "imagePullSecrets", new Message("LocalObjectReference", string(1, "name")))),
                            string(16, "hostname"),
                            string(17, "subdomain"),
                            string(19, "schedulerName"),
                            string(24, "priorityClassName"))));
    private static final Message LABEL_SELECTOR = new Message(
            "LabelSelector",
            new Field(1, "matchLabels", Type.STRING_MAP),
            repeated(message(
                    2,
                    "matchExpressions",
                    new Message(
                            "LabelSelectorRequirement",
                            string(1, "key"),
                            string(2, "operator"),
                            repeated(string(3, "values"))))));
    private static final Message DEPLOYMENT = new Message(
            "Deployment",
            message(1, "metadata", OBJECT_META),
            message(
                    2,
                    "spec",
                    new Message(
                            "DeploymentSpec",
                            pointer(integer(1, "replicas")),
                            message(2, "selector", LABEL_SELECTOR),
                            message(3, "template", POD_TEMPLATE_SPEC),
                            message(
                                    4,
                                    "strategy",
                                    new Message(
                                            "DeploymentStrategy",
                                            string(1, "type"),
                                            message(
                                                    2,
                                                    "rollingUpdate",
                                                    new Message(
                                                            "RollingUpdateDeployment",
                                                            new Field(1, "maxUnavailable", Type.INT_OR_STRING),
                                                            new Field(2, "maxSurge", Type.INT_OR_STRING))))),
                            integer(5, "minReadySeconds"),
                            pointer(integer(6, "revisionHistoryLimit")),
                            bool(7, "paused"),
                            pointer(integer(9, "progressDeadlineSeconds")))),
            // A client's status is dropped on create: only an all-zero one (what kubectl sends) is accepted.
            message(3, "status", new Message("DeploymentStatus")));

    /** {@code k8s.io/api/policy/v1/generated.proto}: what {@code kubectl create pdb} sends. */
    private static final Message POD_DISRUPTION_BUDGET = new Message(
            "PodDisruptionBudget",
            message(1, "metadata", OBJECT_META),
            message(
                    2,
                    "spec",
                    new Message(
                            "PodDisruptionBudgetSpec",
                            pointer(new Field(1, "minAvailable", Type.INT_OR_STRING)),
                            message(2, "selector", LABEL_SELECTOR),
                            pointer(new Field(3, "maxUnavailable", Type.INT_OR_STRING)),
                            pointer(string(4, "unhealthyPodEvictionPolicy")))),
            // A client's status is dropped on create: only an all-zero one (what kubectl sends) is accepted.
            message(3, "status", new Message("PodDisruptionBudgetStatus")));

    /** The kinds decoded, by apiVersion and kind: what kubectl 1.32 creates through its typed clients. */
    private static final Map<List<String>, Message> KINDS = Map.of(
            List.of("v1", "Namespace"), NAMESPACE,
            List.of("v1", "Service"), SERVICE,
            List.of("apps/v1", "Deployment"), DEPLOYMENT,
            List.of("policy/v1", "PodDisruptionBudget"), POD_DISRUPTION_BUDGET);

    /**
     * The object of a protobuf body as JSON, with its {@code apiVersion} and {@code kind}.
     *
     * @throws StatusError 400 for a body that is no Kubernetes protobuf object, 415 for a kind or a field this decoder
     *     does not know
     */
    static ObjectNode decode(byte[] body) {
        if (body == null
                || body.length < MAGIC.length
                || !Arrays.equals(body, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw StatusError.badRequest(
                    "the body of the request is not a Kubernetes protobuf object: it does not start with \"k8s\\x00\"");
        }
        Wire envelope = new Wire(body, MAGIC.length, body.length);
        ObjectNode typeMeta = Json.MAPPER.createObjectNode();
        Wire raw = null;
        String encoding = "";
        while (envelope.more()) {
            int tag = envelope.tag();
            switch (tag >>> 3) {
                case 1 -> typeMeta = read(TYPE_META, envelope.message(tag));
                case 2 -> raw = envelope.message(tag);
                case 3, 4 -> encoding += envelope.string(tag);
                default -> envelope.skip(tag);
            }
        }
        String apiVersion = typeMeta.path("apiVersion").asText("");
        String kind = typeMeta.path("kind").asText("");
        Message message = KINDS.get(List.of(apiVersion, kind));
        if (message == null || raw == null || !encoding.isEmpty()) {
            throw unsupported("a protobuf " + (kind.isEmpty() ? "object" : kind + " of " + apiVersion)
                    + (encoding.isEmpty() ? "" : " in " + encoding) + " is not decoded by this API server (it decodes "
                    + KINDS.values().stream().map(m -> m.name).sorted().toList() + ")");
        }
        ObjectNode object =
                Json.MAPPER.createObjectNode().put("apiVersion", apiVersion).put("kind", kind);
        object.setAll(read(message, raw));
        return object;
    }

    private static ObjectNode read(Message message, Wire wire) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        while (wire.more()) {
            int tag = wire.tag();
            Field field = message.fields.get(tag >>> 3);
            if (field == null) {
                if (!wire.skipZero(tag)) {
                    throw unsupported("field " + (tag >>> 3) + " of " + message.name
                            + " is set, which this API server does not decode");
                }
                continue;
            }
            JsonNode value = field.value(wire, tag);
            if (field.type == Type.STRING_MAP || field.type == Type.QUANTITY_MAP) {
                out.withObjectProperty(field.name).setAll((ObjectNode) value);
            } else if (field.repeated) {
                out.withArrayProperty(field.name).add(value);
            } else if (value != null && (field.always || !isZero(value))) {
                out.set(field.name, value);
            }
        }
        return out;
    }

    /** Go's {@code omitempty}: "", 0 and false; a message (an object) is never empty. */
    private static boolean isZero(JsonNode value) {
        return value.isTextual()
                ? value.asText().isEmpty()
                : value.isNumber() ? value.asLong() == 0 : value.isBoolean() && !value.asBoolean();
    }

    private static StatusError unsupported(String why) {
        return StatusError.unsupportedMediaType(MEDIA_TYPE + ": " + why + "; send it as application/json");
    }

    private enum Type {
        STRING,
        INTEGER,
        BOOL,
        MESSAGE,
        STRING_MAP,
        QUANTITY_MAP,
        TIME,
        INT_OR_STRING
    }

    /** One field of a message: its number, its JSON name and type; {@code always}: kept when zero (a pointer in Go). */
    private record Field(int number, String name, Type type, Message message, boolean repeated, boolean always) {
        Field(int number, String name, Type type) {
            this(number, name, type, null, false, false);
        }

        /** The value of one occurrence; a map's is the one entry as an object; null for a zero time. */
        JsonNode value(Wire wire, int tag) {
            return switch (type) {
                case STRING -> new TextNode(wire.string(tag));
                case INTEGER -> number(wire.varint(tag));
                case BOOL -> Json.MAPPER.getNodeFactory().booleanNode(wire.varint(tag) != 0);
                case MESSAGE -> read(message, wire.message(tag));
                case STRING_MAP, QUANTITY_MAP -> entry(wire.message(tag));
                case TIME -> time(wire.message(tag));
                case INT_OR_STRING -> intOrString(wire.message(tag));
            };
        }

        /** As Jackson reads the same number from JSON: an int when it fits. */
        private static JsonNode number(long value) {
            return value == (int) value ? IntNode.valueOf((int) value) : LongNode.valueOf(value);
        }

        /** A map entry {key = 1, value = 2}; a Quantity value is itself a message {string = 1}. */
        private ObjectNode entry(Wire entry) {
            String key = "";
            String value = "";
            while (entry.more()) {
                int t = entry.tag();
                switch (t >>> 3) {
                    case 1 -> key = entry.string(t);
                    case 2 ->
                        value = type == Type.QUANTITY_MAP
                                ? firstField(entry.message(t), "", Wire::string)
                                : entry.string(t);
                    default -> entry.skip(t);
                }
            }
            return Json.MAPPER.createObjectNode().put(key, value);
        }

        /** metav1.Time {seconds = 1, nanos = 2}: RFC 3339 in whole seconds, as its JSON; the zero time is null. */
        private static JsonNode time(Wire time) {
            long seconds = firstField(time, 0L, Wire::varint);
            return seconds == 0
                    ? null
                    : new TextNode(Instant.ofEpochSecond(seconds).toString());
        }

        /** Field 1 of a message, the only one its JSON shows, read by {@code read}; {@code absent} without it. */
        private static <T> T firstField(Wire message, T absent, BiFunction<Wire, Integer, T> read) {
            T value = absent;
            while (message.more()) {
                int t = message.tag();
                if (t >>> 3 == 1) {
                    value = read.apply(message, t);
                } else {
                    message.skip(t);
                }
            }
            return value;
        }

        /** intstr.IntOrString {type = 1 (0 int, 1 string), intVal = 2, strVal = 3}: a number or a string in JSON. */
        private static JsonNode intOrString(Wire value) {
            long kind = 0;
            long intVal = 0;
            String strVal = "";
            while (value.more()) {
                int t = value.tag();
                switch (t >>> 3) {
                    case 1 -> kind = value.varint(t);
                    case 2 -> intVal = value.varint(t);
                    case 3 -> strVal = value.string(t);
                    default -> value.skip(t);
                }
            }
            return kind == 1 ? new TextNode(strVal) : IntNode.valueOf((int) intVal);
        }
    }

    private static final class Message {
        final String name;
        final Map<Integer, Field> fields = new LinkedHashMap<>();

        Message(String name, Field... fields) {
            this.name = name;
            for (Field f : fields) {
                this.fields.put(f.number, f);
            }
        }
    }

    private static Field string(int number, String name) {
        return new Field(number, name, Type.STRING);
    }

    private static Field integer(int number, String name) {
        return new Field(number, name, Type.INTEGER);
    }

    private static Field bool(int number, String name) {
        return new Field(number, name, Type.BOOL);
    }

    private static Field message(int number, String name, Message message) {
        return new Field(number, name, Type.MESSAGE, message, false, true);
    }

    private static Field repeated(Field f) {
        return new Field(f.number, f.name, f.type, f.message, true, true);
    }

    private static Field pointer(Field f) {
        return new Field(f.number, f.name, f.type, f.message, f.repeated, true);
    }

    /**
     * The protobuf wire format over a slice of bytes: tags, varints and length-delimited values (strings and messages),
     * the only wire types Kubernetes objects use; fixed-width values are skipped.
     */
    private static final class Wire {
        private static final int VARINT = 0;
        private static final int FIXED64 = 1;
        private static final int LENGTH_DELIMITED = 2;
        private static final int FIXED32 = 5;
        private final byte[] bytes;
        private int position;
        private final int limit;

        Wire(byte[] bytes, int from, int limit) {
            this.bytes = bytes;
            this.position = from;
            this.limit = limit;
        }

        boolean more() {
            return position < limit;
        }

        int tag() {
            long tag = rawVarint();
            if (tag >>> 3 == 0 || tag > Integer.MAX_VALUE) {
                throw malformed("a field number of 0");
            }
            return (int) tag;
        }

        long varint(int tag) {
            expect(tag, VARINT);
            return rawVarint();
        }

        String string(int tag) {
            Wire w = message(tag);
            return new String(bytes, w.position, w.limit - w.position, StandardCharsets.UTF_8);
        }

        /** A length-delimited value as a reader of its own; this one moves past it. */
        Wire message(int tag) {
            expect(tag, LENGTH_DELIMITED);
            long length = rawVarint();
            if (length < 0 || length > limit - position) {
                throw malformed("a length beyond the end of the body");
            }
            Wire inner = new Wire(bytes, position, position + (int) length);
            position += (int) length;
            return inner;
        }

        void skip(int tag) {
            switch (tag & 7) {
                case VARINT -> rawVarint();
                case LENGTH_DELIMITED -> message(tag);
                case FIXED64 -> advance(8);
                case FIXED32 -> advance(4);
                default -> throw malformed("wire type " + (tag & 7));
            }
        }

        /** Skips a value and tells whether it was zero: 0, empty, or a message of zero values only. */
        boolean skipZero(int tag) {
            int from = position;
            skip(tag);
            if ((tag & 7) != LENGTH_DELIMITED) {
                // A varint is zero only as the single byte 0; a fixed-width value only as all zero bytes.
                return Arrays.equals(Arrays.copyOfRange(bytes, from, position), new byte[position - from]);
            }
            Wire value = new Wire(bytes, from, position);
            value.rawVarint();
            try {
                while (value.more()) {
                    if (!value.skipZero(value.tag())) {
                        return false;
                    }
                }
                return true;
            } catch (StatusError notAMessage) {
                return false;
            }
        }

        private void expect(int tag, int wireType) {
            if ((tag & 7) != wireType) {
                throw malformed("wire type " + (tag & 7) + " for field " + (tag >>> 3) + ", expected " + wireType);
            }
        }

        private void advance(int n) {
            if (n > limit - position) {
                throw malformed("a value beyond the end of the body");
            }
            position += n;
        }

        private long rawVarint() {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (position >= limit) {
                    throw malformed("a truncated varint");
                }
                byte b = bytes[position++];
                value |= (long) (b & 0x7f) << shift;
                if (b >= 0) {
                    return value;
                }
            }
            throw malformed("a varint longer than 10 bytes");
        }

        private static StatusError malformed(String what) {
            return StatusError.badRequest("the protobuf body of the request is malformed: " + what);
        }
    }
}
