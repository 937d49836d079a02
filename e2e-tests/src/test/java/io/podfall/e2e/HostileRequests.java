package io.podfall.e2e;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.podfall.model.Json;
import io.podfall.model.k8s.ResourceType;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A seeded generator of malformed and hostile Kubernetes API requests, over every verb and every resource path the API
 * server routes. A write aimed at an existing object always carries at least one defect that kube-apiserver refuses it
 * for (a stale or foreign precondition, a body of another kind, a name or namespace that contradicts the URL, an
 * invalid patch, a dry run, a body over the size limit, ...), so no answer may accept it: such a request is
 * {@link Hostile#mayAccept() mayAccept} false. Reads may be accepted, as may the deletes aimed at decoys, throwaway
 * pods that exist to take absurd grace periods that kube-apiserver accepts.
 */
final class HostileRequests {
    /** kube-apiserver's {@code --max-request-bytes}. */
    static final int MAX_REQUEST_BYTES = 3 * 1024 * 1024;

    static final String NOWHERE_NODE = "fuzz-nowhere";
    private static final String JSON = "application/json";
    private static final String MERGE = "application/merge-patch+json";
    private static final String JSON_PATCH = "application/json-patch+json";
    private static final String STRATEGIC = "application/strategic-merge-patch+json";
    private static final List<String> PATCH_TYPES = List.of(MERGE, JSON_PATCH, STRATEGIC);
    /** Not a DNS-1123 subdomain, so not a name of any kind; as URL path segments, escaped where they must be. */
    private static final List<String> INVALID_NAMES = List.of(
            "Web",
            "WEB-1",
            "a".repeat(254),
            "..",
            ".",
            "-a",
            "a-",
            "a_b",
            "a b",
            "a/b",
            "é",
            "a..b",
            "web!",
            "*",
            "a".repeat(64) + "." + "B");

    private static final List<String> RAW_PATH_NAMES = List.of(
            "..",
            ".",
            "%2e%2e",
            "a%2Fb",
            "a%00b",
            "%",
            "%zz",
            "a%20b",
            "%252e%252e",
            "%C3%A9",
            "WEB",
            "a".repeat(254),
            "victim%3Fwatch=true",
            "victim;x=y",
            "~",
            "%u0041");
    private static final List<String> BAD_LABEL_SELECTORS = List.of(
            "a=b=c", "=x", "!", "a in (", "a,,b", "!=x", "(", "a==b==c", "a b", "a=b c", "é=1", "a!==b", "-a=1", "a=(",
            ",", "a notin", "!a=b");
    private static final List<String> BAD_FIELD_SELECTORS = List.of(
            "spec.bogus=x",
            "x",
            "=x",
            "metadata.name",
            "a,b",
            "metadata.name=a=b",
            "status.phase in (Running)",
            "metadata.labels.app=web",
            "!metadata.name",
            "metadata.name=(x)");
    /** No integer as strconv.ParseInt reads one (escaped when sent, as every query value). */
    private static final List<String> NON_NUMERIC = List.of(
            "abc", "1.5", "1e3", "0x10", " 5", "5 ", "-", "99999999999999999999", "true", "\u0000", "NaN", "--1", " ");

    private static final long[] ABSURD_GRACE = {
        -1, -30, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, 1L << 53, 9_999_999_999L, 315_576_000_000L, 0
    };
    private static final List<String> BAD_POLICIES =
            List.of("garbage", "foreground", "Orphan ", "nil", "BACKGROUND", "\u0000", "Delete", " ");
    private static final List<String> BAD_DRY_RUN = List.of("All", "garbage", "all", "", "All&dryRun=All", "None");
    private static final List<String> UNKNOWN_PATHS = List.of(
            "/api/v2/pods",
            "/api/v1/widgets",
            "/api/v1/namespaces/fuzz/widgets",
            "/apis/apps/v2/namespaces/fuzz/deployments",
            "/apis/apps/v1beta1/namespaces/fuzz/deployments",
            "/apis/apps/v1/pods",
            "/apis/coordination.k8s.io/v1beta1/leases",
            "/apis/example.com/v1/things",
            "/api/v1/namespaces/fuzz/deployments",
            "/api/v1/namespaces/fuzz/pods/victim/log",
            "/api/v1/namespaces/fuzz/pods/victim/binding",
            "/api/v1/namespaces/fuzz/pods/victim/status/extra",
            "/api/v1/nodes/node-1/proxy",
            "/apis/apps/v1/namespaces/fuzz/deployments/web/rollback",
            "/api/v1/namespaces/fuzz/namespaces/x",
            "/api/v1/namespaces/fuzz/pods/victim/exec",
            "/api/v1/namespaces/fuzz/services/web/scale",
            "/apis/apps/v1/namespaces/fuzz/deployments/web/eviction",
            "/api/v1/namespaces/fuzz/pods/victim/finalize",
            "/api/v1/nodes/node-1/eviction",
            "/apisx/apps/v1",
            "/api/v1beta1",
            "/apis/policy/v1/namespaces/fuzz/evictions",
            "/api/v1/namespaces/fuzz/endpoints/web/status",
            "/apis/coordination.k8s.io/v1/leases/x",
            "/api/v1/namespaces/x/y/z/w/v/u",
            "/api/v1/namespaces/fuzz/pods/victim/status/status",
            "/metrics",
            "/healthz/x",
            "/",
            "/openapi/v3/apis");
    private static final List<String> FRAGMENTS = List.of(
            "{",
            "}",
            "[",
            "]",
            "\"",
            ":",
            ",",
            "null",
            "true",
            "-1e999",
            "0x1F",
            "\"kind\"",
            "\"Pod\"",
            "\\u0000",
            "\\ud800",
            " ",
            "\n",
            "é",
            "//",
            "/*",
            "NaN",
            "'a'",
            "\"metadata\"",
            "{\"name\":");

    /** An object the requests aim at, as the API server served it before the run. */
    record Existing(ResourceType type, String namespace, String name, ObjectNode object) {
        String collection() {
            return HostileRequests.collection(type, namespace);
        }

        String path() {
            return collection() + "/" + name;
        }
    }

    /**
     * The request, what kind of hostility it is, and whether an answer may accept it (2xx); {@code expect} 0 for any
     * 4xx.
     */
    record Hostile(String kind, RawHttp.Request request, boolean mayAccept, int expect) {}

    private final Random random;
    private final List<Existing> existing;
    private final List<Existing> decoys;
    private int counter;

    HostileRequests(long seed, List<Existing> existing, List<Existing> decoys) {
        this.random = new Random(seed);
        this.existing = existing;
        this.decoys = decoys;
    }

    Hostile next() {
        List<Supplier<Hostile>> kinds = List.of(
                this::badJson,
                this::wrongKind,
                this::invalidName,
                this::invalidPathName,
                this::namespaceMismatch,
                this::gracePeriod,
                this::propagationPolicy,
                this::dryRun,
                this::badSelector,
                this::stalePrecondition,
                this::unknownResource,
                this::wrongContentType,
                this::invalidPatch,
                this::subresource,
                this::watch,
                this::read,
                this::decoyDelete,
                this::deleteCollection);
        counter++;
        if (counter % 97 == 0) {
            return huge();
        }
        return kinds.get(random.nextInt(kinds.size())).get();
    }

    // --- the kinds of hostility ---

    /** Bodies that are not one JSON value: truncated objects, random bytes, fragments, non-objects, trailing data. */
    private Hostile badJson() {
        Existing e = pick(existing);
        byte[] body = brokenJson(e.object());
        return switch (random.nextInt(4)) {
            case 0 -> hostile("bad-json", "POST", e.collection(), JSON, body);
            case 1 -> hostile("bad-json", "PUT", e.path(), JSON, body);
            case 2 -> hostile("bad-json", "PATCH", e.path(), pick(List.of(MERGE, STRATEGIC)), body);
            default -> hostile("bad-json", "DELETE", e.path(), JSON, nonEmpty(body));
        };
    }

    /** An object of another kind or apiVersion than the path's: created, or put in place of an existing one. */
    private Hostile wrongKind() {
        Existing e = pick(existing);
        ObjectNode body = e.object().deepCopy();
        switch (random.nextInt(4)) {
            case 0 ->
                body.put(
                        "kind",
                        pickOther(
                                List.of("Deployment", "Pod", "Service", "pod", "Status", "List", "Eviction"),
                                e.type().kind()));
            case 1 ->
                body.put(
                        "apiVersion",
                        pickOther(
                                List.of(
                                        "v2",
                                        "apps/v1beta1",
                                        "v1beta1",
                                        "apps/v1/x",
                                        "coordination.k8s.io/v1beta1",
                                        "/",
                                        "policy/v1",
                                        "v1"),
                                e.type().apiVersion()));
            case 2 -> {
                Existing other =
                        pick(existing.stream().filter(o -> o.type() != e.type()).toList());
                body = other.object().deepCopy();
                metadata(body)
                        .put("name", e.name())
                        .put("namespace", e.namespace())
                        .put("resourceVersion", rv(e));
            }
            default ->
                body.put("kind", e.type().kind())
                        .put("apiVersion", e.type().group().isEmpty() ? "apps/v1" : "v1");
        }
        noise(body);
        if (random.nextBoolean()) {
            metadata(body).put("name", fresh()).remove(List.of("uid", "resourceVersion"));
            return hostile("wrong-kind", "POST", e.collection(), JSON, Json.bytes(body));
        }
        return hostile("wrong-kind", "PUT", e.path(), JSON, Json.bytes(body));
    }

    /** A create whose name is no DNS-1123 subdomain (nor, then, any narrower rule), or empty. */
    private Hostile invalidName() {
        Existing e = pick(existing);
        ObjectNode body = template(e);
        ObjectNode meta = metadata(body);
        switch (random.nextInt(4)) {
            case 0 -> meta.put("name", "");
            case 1 -> meta.remove("name");
            case 2 -> meta.put("name", " ");
            default -> meta.put("name", pick(INVALID_NAMES));
        }
        if (!meta.has("name") && random.nextBoolean()) {
            meta.put("generateName", pick(List.of("Bad-", "a/", "..", "-", "é", "a".repeat(300))));
        }
        return hostile("invalid-name", "POST", e.collection(), JSON, Json.bytes(body));
    }

    /** Every verb on a name in the URL that no object can have: escaped slashes and dots, bad escapes, too long. */
    private Hostile invalidPathName() {
        Existing e = pick(existing);
        String path = e.collection() + "/" + pick(RAW_PATH_NAMES)
                + (random.nextInt(4) == 0 ? "/" + pick(List.of("status", "scale", "eviction", "finalize")) : "");
        ObjectNode body = e.object().deepCopy();
        metadata(body).put("resourceVersion", stale(e));
        return switch (random.nextInt(5)) {
            case 0 -> read("invalid-path-name", path);
            case 1 -> hostile("invalid-path-name", "PUT", path, JSON, Json.bytes(body));
            case 2 ->
                hostile(
                        "invalid-path-name",
                        "PATCH",
                        path,
                        MERGE,
                        "{\"metadata\":{\"labels\":{\"fuzz\":\"x\"}}}".getBytes(StandardCharsets.UTF_8));
            case 3 -> hostile("invalid-path-name", "POST", path, JSON, Json.bytes(body));
            default -> hostile("invalid-path-name", "DELETE", path, null, null);
        };
    }

    /** A body whose namespace is not the URL's, or a URL namespace that does not exist. */
    private Hostile namespaceMismatch() {
        Existing e = pick(existing.stream().filter(o -> o.type().namespaced()).toList());
        if (random.nextInt(3) == 0) {
            ObjectNode body = template(e);
            return hostile("namespace-mismatch", "POST", collection(e.type(), "nx-" + fresh()), JSON, Json.bytes(body));
        }
        ObjectNode body = random.nextBoolean() ? template(e) : e.object().deepCopy();
        metadata(body).put("namespace", pick(List.of("default", "kube-system", "other", "FUZZ", " fuzz", "fuzz/x")));
        noise(body);
        return body.path("metadata").has("uid")
                ? hostile("namespace-mismatch", "PUT", e.path(), JSON, Json.bytes(body))
                : hostile("namespace-mismatch", "POST", e.collection(), JSON, Json.bytes(body));
    }

    /**
     * Grace periods that are no integer (in the query or the body), or numbers of any size with a precondition the
     * object does not meet: kube-apiserver accepts a negative or huge number (see {@link #decoyDelete}).
     */
    private Hostile gracePeriod() {
        Existing e = pick(existing);
        return badDelete("grace-period", e, "gracePeriodSeconds", NON_NUMERIC, options -> {
            if (random.nextBoolean()) {
                options.set(
                        "gracePeriodSeconds",
                        pick(List.of(
                                Json.MAPPER.getNodeFactory().textNode("30"),
                                Json.MAPPER.getNodeFactory().numberNode(1.5),
                                Json.MAPPER.getNodeFactory().booleanNode(true),
                                Json.MAPPER.createArrayNode(),
                                Json.MAPPER.createObjectNode(),
                                Json.MAPPER.getNodeFactory().numberNode(new BigInteger("99999999999999999999")))));
            } else {
                options.put("gracePeriodSeconds", ABSURD_GRACE[random.nextInt(ABSURD_GRACE.length)]);
                options.putObject("preconditions")
                        .put(
                                random.nextBoolean() ? "uid" : "resourceVersion",
                                random.nextBoolean() ? uuid() : stale(e));
            }
        });
    }

    private Hostile propagationPolicy() {
        return badDelete("propagation-policy", pick(existing), "propagationPolicy", BAD_POLICIES, options -> {
            if (random.nextBoolean()) {
                options.put("propagationPolicy", pick(BAD_POLICIES));
            } else {
                options.put("propagationPolicy", pick(List.of("Orphan", "Background", "Foreground")))
                        .put("orphanDependents", random.nextBoolean());
            }
        });
    }

    /**
     * A DELETE of {@code e} with a bad value of {@code param} in the query, or with DeleteOptions {@code spoil} makes
     * bad.
     */
    private Hostile badDelete(
            String kind, Existing e, String param, List<String> badValues, Consumer<ObjectNode> spoil) {
        if (random.nextBoolean()) {
            return hostile(kind, "DELETE", e.path() + "?" + param + "=" + escape(pick(badValues)), null, null);
        }
        ObjectNode options = deleteOptions();
        spoil.accept(options);
        return hostile(kind, "DELETE", e.path(), JSON, Json.bytes(options));
    }

    /** A dry run of each write (refused here: a dry run has no fact for the log), or an unknown dry-run value. */
    private Hostile dryRun() {
        Existing e = pick(existing);
        String query = "?dryRun=" + escape(pick(BAD_DRY_RUN));
        ObjectNode body = e.object().deepCopy();
        metadata(body).withObjectProperty("labels").put("fuzz", "dry-run");
        return switch (random.nextInt(5)) {
            case 0 -> hostile("dry-run", "PUT", e.path() + query, JSON, Json.bytes(body));
            case 1 ->
                hostile(
                        "dry-run",
                        "PATCH",
                        e.path() + query,
                        MERGE,
                        "{\"metadata\":{\"labels\":{\"fuzz\":\"dry-run\"}}}".getBytes(StandardCharsets.UTF_8));
            case 2 -> {
                ObjectNode created = template(e);
                yield hostile("dry-run", "POST", e.collection() + query, JSON, Json.bytes(created));
            }
            case 3 -> hostile("dry-run", "DELETE", e.path() + query, null, null);
            default -> {
                ObjectNode options = deleteOptions();
                options.putArray("dryRun").add(pick(BAD_DRY_RUN));
                yield hostile("dry-run", "DELETE", e.path(), JSON, Json.bytes(options));
            }
        };
    }

    /**
     * Label and field selectors that do not parse, or name fields the kind cannot be selected by, on LIST and watch.
     */
    private Hostile badSelector() {
        Existing e = pick(existing);
        String query = random.nextBoolean()
                ? "labelSelector=" + escape(pick(BAD_LABEL_SELECTORS))
                : "fieldSelector=" + escape(pick(BAD_FIELD_SELECTORS));
        if (random.nextInt(6) == 0) {
            query = "labelSelector=" + "a=b,".repeat(1500) + "!";
        }
        String collection = random.nextInt(4) == 0 ? collection(e.type(), null) : e.collection();
        return switch (random.nextInt(3)) {
            case 0 -> read("bad-selector", collection + "?" + query);
            case 1 -> read("bad-selector", collection + "?watch=true&timeoutSeconds=1&" + query);
            default -> hostile("bad-selector", "DELETE", e.collection() + "?" + query, null, null);
        };
    }

    /** resourceVersion and uid preconditions the object does not meet, and resourceVersions that are no version. */
    private Hostile stalePrecondition() {
        Existing e = pick(existing);
        String staleRv = pick(List.of("1", "abc", "-1", "99999999999", "", " " + rv(e), rv(e) + "0"));
        if (staleRv.isEmpty() || staleRv.equals(rv(e))) {
            staleRv = stale(e);
        }
        switch (random.nextInt(3)) {
            case 0: {
                ObjectNode body = e.object().deepCopy();
                metadata(body)
                        .put("resourceVersion", staleRv)
                        .withObjectProperty("labels")
                        .put("fuzz", "stale");
                noise(body);
                return hostile("stale-precondition", "PUT", e.path(), JSON, Json.bytes(body));
            }
            case 1: {
                String patch =
                        "{\"metadata\":{\"resourceVersion\":\"" + staleRv + "\",\"labels\":{\"fuzz\":\"stale\"}}}";
                return hostile(
                        "stale-precondition",
                        "PATCH",
                        e.path(),
                        pick(List.of(MERGE, STRATEGIC)),
                        patch.getBytes(StandardCharsets.UTF_8));
            }
            default: {
                ObjectNode options = deleteOptions();
                ObjectNode pre = options.putObject("preconditions");
                if (random.nextBoolean()) {
                    pre.put(
                            "uid",
                            pick(List.of(
                                    uuid(),
                                    "",
                                    "x",
                                    e.object().path("metadata").path("uid").asText() + "x")));
                    if (pre.path("uid").asText().isEmpty()) {
                        pre.put("resourceVersion", staleRv);
                    }
                } else {
                    pre.put("resourceVersion", staleRv);
                }
                return hostile("stale-precondition", "DELETE", e.path(), JSON, Json.bytes(options));
            }
        }
    }

    /** Groups, versions, resources and subresources the API server does not serve, with every verb. */
    private Hostile unknownResource() {
        String path = pick(UNKNOWN_PATHS);
        String method = pick(List.of("GET", "POST", "PUT", "PATCH", "DELETE"));
        byte[] body = method.equals("GET") ? null : Json.bytes(template(pick(existing)));
        return new Hostile(
                "unknown-resource",
                new RawHttp.Request(
                        method, path, method.equals("PATCH") ? MERGE : body == null ? null : JSON, body, false),
                false,
                0);
    }

    /**
     * Bodies in media types not served (YAML, text, forms, protobuf that does not decode), or JSON of another patch
     * type.
     */
    private Hostile wrongContentType() {
        Existing e = pick(existing);
        ObjectNode object = e.object().deepCopy();
        metadata(object).put("resourceVersion", stale(e));
        String type = pick(List.of(
                "application/yaml",
                "text/plain",
                "application/vnd.kubernetes.protobuf",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
                "application/xml",
                "*/*",
                "application/*",
                "garbage",
                "application/json;;;=",
                "application/cbor",
                "application/json; charset=utf-16",
                "application/apply-patch+yaml",
                JSON_PATCH,
                MERGE,
                STRATEGIC,
                "application/vnd.kubernetes.protobuf;stream=watch"));
        byte[] body = switch (type) {
            case "application/yaml", "application/apply-patch+yaml" ->
                ("apiVersion: " + e.type().apiVersion() + "\nkind: " + e.type().kind() + "\nmetadata:\n  name: "
                                + e.name() + "\n  resourceVersion: \"" + stale(e) + "\"\n")
                        .getBytes(StandardCharsets.UTF_8);
            case "application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf;stream=watch" ->
                protobufGarbage();
            case "application/x-www-form-urlencoded" -> "metadata.name=x&a=b".getBytes(StandardCharsets.UTF_8);
            case "multipart/form-data; boundary=x" ->
                "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--x--".getBytes(StandardCharsets.UTF_8);
            default -> Json.bytes(object);
        };
        return switch (random.nextInt(4)) {
            case 0 -> hostile("content-type", "POST", e.collection(), type, body);
            case 1 -> hostile("content-type", "PUT", e.path(), type, body);
            case 2 ->
                hostile(
                        "content-type",
                        "PATCH",
                        e.path(),
                        PATCH_TYPES.contains(type) ? "application/json" : type,
                        body);
            default ->
                hostile(
                        "content-type",
                        "DELETE",
                        e.path(),
                        type,
                        type.contains("json") ? nonEmpty(brokenJson(object)) : body);
        };
    }

    /** Patches of each type that cannot be applied, or that contradict the object's name, kind, uid or version. */
    private Hostile invalidPatch() {
        Existing e = pick(existing);
        String type = pick(PATCH_TYPES);
        String patch;
        if (type.equals(JSON_PATCH)) {
            patch = pick(List.of(
                    "{}",
                    "[{\"op\":\"bogus\",\"path\":\"/metadata\"}]",
                    "[{\"op\":\"remove\",\"path\":\"/nonexistent/x\"}]",
                    "[{\"op\":\"test\",\"path\":\"/metadata/name\",\"value\":\"other\"}]",
                    "[{\"op\":\"replace\",\"path\":\"/metadata/resourceVersion\",\"value\":\"STALE\"}]",
                    "[{\"op\":\"move\",\"from\":\"/metadata\",\"path\":\"/metadata/x\"}]",
                    "[{\"op\":\"copy\",\"from\":\"/nope\",\"path\":\"/x\"}]",
                    "[{\"op\":\"add\"}]",
                    "[{\"op\":\"add\",\"path\":\"~\",\"value\":1}]",
                    "[1,2]",
                    "[null]",
                    "[{\"op\":\"replace\",\"path\":\"/kind\",\"value\":\"Other\"}]",
                    "[{\"op\":\"replace\",\"path\":\"/metadata/uid\",\"value\":\"x\"}]",
                    "[{\"op\":\"add\",\"path\":\"/metadata/name\",\"value\":\"renamed\"}]",
                    "[{\"op\":\"replace\",\"path\":\"\",\"value\":[]}]",
                    "[{\"op\":\"remove\",\"path\":\"/metadata/labels/~3\"}]",
                    "[{\"op\":\"add\",\"path\":\"/spec/x/99999/y\",\"value\":1}]",
                    "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"STALE\"}]"));
        } else {
            // (A cluster-scoped object drops a namespace in its body: rest.BeforeUpdate.)
            patch = pick(List.of(
                    "{\"metadata\":{\"name\":\"renamed\"}}",
                    e.type().namespaced()
                            ? "{\"metadata\":{\"namespace\":\"other\"}}"
                            : "{\"metadata\":{\"name\":\"\"}}",
                    "{\"kind\":\"Other\"}",
                    "{\"apiVersion\":\"v9\"}",
                    "{\"metadata\":{\"uid\":\"x\"}}",
                    "{\"metadata\":\"x\"}",
                    "{\"spec\":\"str\"}",
                    "{\"metadata\":{\"resourceVersion\":\"STALE\"}}",
                    "[1]",
                    "42",
                    "\"x\"",
                    "{\"metadata\":{\"labels\":[1]}}",
                    "{\"metadata\":{\"generation\":\"x\"}}",
                    "{\"metadata\":{\"deletionTimestamp\":\"2000-01-01T00:00:00Z\"}}",
                    type.equals(STRATEGIC) ? "{\"$patch\":\"garbage\"}" : "{\"metadata\":{\"finalizers\":{\"a\":1}}}",
                    type.equals(STRATEGIC)
                            ? "{\"metadata\":{\"$patch\":\"garbage\"}}"
                            : "{\"metadata\":{\"uid\":null,\"resourceVersion\":\"STALE\"}}"));
        }
        patch = patch.replace("STALE", stale(e));
        String path = e.path();
        if (random.nextInt(4) == 0) {
            // Not /scale: a Scale keeps only the replicas of a patch (upstream too), so most of these change nothing
            // there.
            path += "/" + pick(List.of("status", "finalize", "eviction"));
        }
        return hostile("invalid-patch", "PATCH", path, type, patch.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes of status, scale, eviction, binding and finalize, each with a defect. */
    private Hostile subresource() {
        Existing e = pick(existing);
        String sub = pick(List.of("status", "scale", "eviction", "binding", "finalize"));
        ObjectNode body;
        if (sub.equals("scale")) {
            body = Json.MAPPER
                    .createObjectNode()
                    .put("apiVersion", "autoscaling/v1")
                    .put("kind", "Scale");
            metadata(body).put("name", e.name()).put("namespace", e.namespace()).put("resourceVersion", rv(e));
            body.putObject("spec")
                    .set(
                            "replicas",
                            pick(List.of(
                                    Json.MAPPER.getNodeFactory().numberNode(-1),
                                    Json.MAPPER.getNodeFactory().textNode("x"),
                                    Json.MAPPER.getNodeFactory().numberNode(10_000_000_000L),
                                    Json.MAPPER.getNodeFactory().numberNode(1.5))));
            if (random.nextBoolean()) {
                metadata(body).put(random.nextBoolean() ? "name" : "resourceVersion", stale(e));
                ((ObjectNode) body.get("spec")).put("replicas", 3);
            }
        } else if (sub.equals("eviction") || sub.equals("binding")) {
            body = Json.MAPPER
                    .createObjectNode()
                    .put("apiVersion", sub.equals("eviction") ? "policy/v1" : "v1")
                    .put("kind", sub.equals("eviction") ? "Eviction" : "Binding");
            metadata(body).put("name", e.name()).put("namespace", e.namespace());
            ObjectNode options = body.putObject("deleteOptions");
            switch (random.nextInt(5)) {
                case 0 -> metadata(body).put("name", "other");
                case 1 -> body.put("kind", pick(List.of("Pod", "DeleteOptions", "eviction")));
                case 2 -> options.putObject("preconditions").put("uid", uuid());
                case 3 -> options.put("propagationPolicy", pick(BAD_POLICIES));
                default -> options.put("gracePeriodSeconds", "abc");
            }
            if (sub.equals("binding")) {
                body.putObject("target").put("kind", "Node").put("name", NOWHERE_NODE);
            }
            return hostile("subresource", "POST", e.path() + "/" + sub, JSON, Json.bytes(body));
        } else {
            body = e.object().deepCopy();
            switch (random.nextInt(4)) {
                case 0 -> metadata(body).put("resourceVersion", stale(e));
                case 1 -> metadata(body).put("name", "other");
                case 2 -> body.put("kind", "Other");
                default -> metadata(body).put("uid", uuid());
            }
            body.withObjectProperty("status").put("phase", "Fuzzed");
            body.withObjectProperty("spec").putArray("finalizers").add("fuzz.example/x");
        }
        noise(body);
        return hostile("subresource", "PUT", e.path() + "/" + sub, JSON, Json.bytes(body));
    }

    /**
     * Watches from versions that are no version (or too old), with bad timeouts and selectors; accepted ones end in 1
     * s.
     */
    private Hostile watch() {
        Existing e = pick(existing);
        String collection = random.nextInt(5) == 0 ? collection(e.type(), null) : e.collection();
        String rv = pick(List.of("abc", "-1", "1", "1.5", "99999999999999999999", "%00", "0x10", rv(e), "", " 1"));
        String timeout = pick(List.of("1", "1", "1", "abc", "-1", "1.5", "99999999999999999999"));
        String query = "?watch=" + pick(List.of("true", "1", "True", "t")) + "&resourceVersion=" + escape(rv)
                + "&timeoutSeconds=" + escape(timeout);
        if (random.nextBoolean()) {
            query += "&"
                    + pick(List.of(
                            "allowWatchBookmarks=garbage",
                            "resourceVersionMatch=garbage",
                            "sendInitialEvents=garbage",
                            "labelSelector=" + escape(pick(BAD_LABEL_SELECTORS)),
                            "fieldSelector=" + escape(pick(BAD_FIELD_SELECTORS)),
                            "includeObject=garbage",
                            "limit=-1",
                            "continue=garbage"));
        }
        return read("watch", collection + query);
    }

    /** GET and LIST with odd parameters and Accept headers' worth of options. */
    private Hostile read() {
        Existing e = pick(existing);
        String path = random.nextBoolean() ? e.path() : e.collection();
        String query = pick(List.of(
                "limit=-1",
                "limit=abc",
                "continue=garbage",
                "resourceVersion=abc",
                "resourceVersionMatch=garbage",
                "includeObject=garbage",
                "timeoutSeconds=-5",
                "watch=false",
                "watch=garbage",
                "pretty=garbage",
                "export=true",
                "fieldManager=%00",
                "resourceVersion=1&resourceVersionMatch=NotOlderThan"));
        if (random.nextInt(5) == 0) {
            path = "/" + path.replace("/", "//");
        }
        return read("read", path + "?" + query);
    }

    /**
     * Deletes of throwaway pods (on a node no kubelet runs) with absurd grace periods, which kube-apiserver accepts (a
     * negative one counts as 1 s; rest/delete.go), or with values of the wrong JSON type, which it does not.
     */
    private Hostile decoyDelete() {
        Existing d = pick(decoys);
        if (random.nextBoolean()) {
            // Not 0: that would remove the decoy at once.
            long grace = ABSURD_GRACE[random.nextInt(ABSURD_GRACE.length - 1)];
            return random.nextBoolean()
                    ? new Hostile(
                            "decoy-delete",
                            new RawHttp.Request("DELETE", d.path() + "?gracePeriodSeconds=" + grace, null, null, false),
                            true,
                            0)
                    : new Hostile(
                            "decoy-delete",
                            new RawHttp.Request(
                                    "DELETE",
                                    d.path(),
                                    JSON,
                                    Json.bytes(deleteOptions().put("gracePeriodSeconds", grace)),
                                    false),
                            true,
                            0);
        }
        ObjectNode options = deleteOptions();
        options.set(
                "gracePeriodSeconds",
                pick(List.of(
                        Json.MAPPER.getNodeFactory().textNode("30"),
                        Json.MAPPER.getNodeFactory().numberNode(1.5),
                        Json.MAPPER.getNodeFactory().booleanNode(false))));
        return hostile("decoy-delete", "DELETE", d.path(), JSON, Json.bytes(options));
    }

    /**
     * deletecollection with options or selectors it must refuse, across namespaces, of namespaces; or matching nothing.
     */
    private Hostile deleteCollection() {
        Existing e = pick(existing);
        String query = pick(List.of(
                "propagationPolicy=" + escape(pick(BAD_POLICIES)),
                "gracePeriodSeconds=" + escape(pick(NON_NUMERIC)),
                "dryRun=" + escape(pick(BAD_DRY_RUN)),
                "labelSelector=" + escape(pick(BAD_LABEL_SELECTORS)),
                "fieldSelector=" + escape(pick(BAD_FIELD_SELECTORS))));
        return switch (random.nextInt(4)) {
            // Across all namespaces: refused; of a cluster-scoped kind (but namespaces): allowed, and it matches
            // nothing.
            case 0 ->
                new Hostile(
                        "delete-collection",
                        new RawHttp.Request(
                                "DELETE",
                                collection(e.type(), null) + "?labelSelector=fuzz-absent%3D1",
                                null,
                                null,
                                false),
                        !e.type().namespaced() && e.type() != ResourceType.NAMESPACES,
                        0);
            case 1 ->
                hostile("delete-collection", "DELETE", "/api/v1/namespaces?labelSelector=fuzz-absent%3D1", null, null);
            case 2 ->
                new Hostile(
                        "delete-collection",
                        new RawHttp.Request(
                                "DELETE", e.collection() + "?labelSelector=fuzz-absent%3D1", null, null, false),
                        e.type() != ResourceType.NAMESPACES,
                        0);
            default -> hostile("delete-collection", "DELETE", e.collection() + "?" + query, null, null);
        };
    }

    /** Bodies over kube-apiserver's 3 MiB limit, with a length or in chunks without one: 413 either way. */
    private Hostile huge() {
        Existing e = pick(existing);
        int size =
                MAX_REQUEST_BYTES + 1 + random.nextInt(MAX_REQUEST_BYTES / 2 + random.nextInt(2) * MAX_REQUEST_BYTES);
        ObjectNode body = e.object().deepCopy();
        metadata(body).withObjectProperty("annotations").put("fuzz", "x".repeat(size));
        byte[] bytes = Json.bytes(body);
        String method = pick(List.of("POST", "PUT", "PATCH", "DELETE"));
        if (method.equals("DELETE")) {
            ObjectNode options = deleteOptions().put("fuzz", "x".repeat(size));
            options.putObject("preconditions").put("uid", uuid());
            bytes = Json.bytes(options);
        }
        String path = method.equals("POST") ? e.collection() : e.path();
        String type = method.equals("PATCH") ? MERGE : JSON;
        return new Hostile(
                "huge-body", new RawHttp.Request(method, path, type, bytes, random.nextBoolean()), false, 413);
    }

    // --- pieces ---

    /** Every eighth body goes in chunks, with no length: read by another path of the server. */
    private Hostile hostile(String kind, String method, String target, String contentType, byte[] body) {
        return new Hostile(
                kind,
                new RawHttp.Request(method, target, contentType, body, body != null && counter % 8 == 3),
                false,
                0);
    }

    private Hostile read(String kind, String target) {
        return new Hostile(kind, new RawHttp.Request("GET", target, null, null, false), true, 0);
    }

    /**
     * A new object like {@code e} (a pod bound to a node no kubelet runs), with a fresh name and none of the server's
     * fields.
     */
    private ObjectNode template(Existing e) {
        ObjectNode body = e.object().deepCopy();
        body.remove("status");
        ObjectNode meta = metadata(body);
        meta.remove(List.of(
                "uid", "resourceVersion", "creationTimestamp", "generation", "ownerReferences", "managedFields"));
        meta.put("name", fresh());
        if (e.type() == ResourceType.PODS) {
            body.withObjectProperty("spec").put("nodeName", NOWHERE_NODE);
        }
        if (e.type() == ResourceType.SERVICES) {
            ((ObjectNode) body.get("spec")).remove(List.of("clusterIP", "clusterIPs"));
        }
        noise(body);
        return body;
    }

    /** Unknown fields here and there, which kube-apiserver ignores by default (fieldValidation=Warn). */
    private void noise(ObjectNode body) {
        if (random.nextInt(3) == 0) {
            body.put("fuzzUnknown" + random.nextInt(3), random.nextInt());
        }
        if (random.nextInt(3) == 0) {
            metadata(body).putArray("fuzzUnknownList").add("x");
        }
        if (random.nextInt(4) == 0 && body.get("spec") instanceof ObjectNode spec) {
            spec.putObject("fuzzUnknown").put("a", true);
        }
    }

    private ObjectNode deleteOptions() {
        ObjectNode options = Json.MAPPER.createObjectNode();
        if (random.nextBoolean()) {
            options.put("apiVersion", "v1").put("kind", "DeleteOptions");
        }
        return options;
    }

    /** Bytes that are no single JSON value, made from {@code object}. */
    private byte[] brokenJson(JsonNode object) {
        byte[] whole = Json.bytes(object);
        byte[] out = switch (random.nextInt(7)) {
            case 0 -> Arrays.copyOf(whole, random.nextInt(whole.length - 1));
            case 1 -> {
                byte[] b = new byte[random.nextInt(200)];
                random.nextBytes(b);
                yield b;
            }
            case 2 -> {
                StringBuilder s = new StringBuilder("{");
                for (int i = random.nextInt(12); i > 0; i--) {
                    s.append(pick(FRAGMENTS));
                }
                yield s.toString().getBytes(StandardCharsets.UTF_8);
            }
            case 3 ->
                (new String(whole, StandardCharsets.UTF_8) + pick(List.of(" {}", "x", "]", ",", "\u0000")))
                        .getBytes(StandardCharsets.UTF_8);
            case 4 -> ("{\"a\":".repeat(5000) + "1" + "}".repeat(5000)).getBytes(StandardCharsets.UTF_8);
            case 5 ->
                pick(List.of("", " ", "[]", "42", "null", "\"x\"", "true", "[{}]"))
                        .getBytes(StandardCharsets.UTF_8);
            default ->
                new String(whole, StandardCharsets.UTF_8)
                        .replaceFirst("\":", "\"")
                        .getBytes(StandardCharsets.UTF_8);
        };
        return isJsonObject(out) ? Arrays.copyOf(out, out.length - 1) : out;
    }

    /** An empty body is no body, for a DELETE: it would be carried out with the default options. */
    private static byte[] nonEmpty(byte[] body) {
        return body.length == 0 ? "{".getBytes(StandardCharsets.UTF_8) : body;
    }

    /** Whether the bytes happen to be one JSON object (the fragments can make "{}"), which would be no broken body. */
    private static boolean isJsonObject(byte[] bytes) {
        try {
            return Json.MAPPER
                            .reader()
                            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                            .readTree(bytes)
                    instanceof ObjectNode;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private byte[] protobufGarbage() {
        byte[] b = new byte[4 + random.nextInt(100)];
        random.nextBytes(b);
        if (random.nextBoolean()) {
            System.arraycopy(new byte[] {'k', '8', 's', 0}, 0, b, 0, 4);
        }
        return b;
    }

    static String collection(ResourceType type, String namespace) {
        String prefix = type.group().isEmpty() ? "/api/v1" : "/apis/" + type.group() + "/v1";
        return type.namespaced() && namespace != null
                ? prefix + "/namespaces/" + namespace + "/" + type.plural()
                : prefix + "/" + type.plural();
    }

    private static ObjectNode metadata(ObjectNode body) {
        return body.get("metadata") instanceof ObjectNode meta ? meta : body.putObject("metadata");
    }

    private static String rv(Existing e) {
        return e.object().path("metadata").path("resourceVersion").asText();
    }

    /** A resourceVersion the object does not have: it never goes back to "1", the first write of all. */
    private static String stale(Existing e) {
        return rv(e).equals("1") ? "2" : "1";
    }

    /** Drawn from the seeded generator, so a run replays with the same uids. */
    private String uuid() {
        return new UUID(random.nextLong(), random.nextLong()).toString();
    }

    private String fresh() {
        return "nx-" + Integer.toString(random.nextInt(Integer.MAX_VALUE), 36);
    }

    private static String escape(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }

    private String pickOther(List<String> options, String not) {
        return pick(options.stream().filter(o -> !o.equals(not)).toList());
    }
}
