package io.podfall.apiserver.auth;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Attribute-based authorization as kube-apiserver's {@code --authorization-mode=ABAC} with
 * {@code --authorization-policy-file} (pkg/auth/authorizer/abac/abac.go): one JSON Policy a line,
 * {@code {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{...}}}. A request is allowed
 * when one policy matches it: its subject ({@code user} and/or {@code group}, {@code "*"} for any), its verb (a
 * {@code readonly} policy allows only get, list and watch), and either its resource ({@code namespace},
 * {@code resource}, {@code apiGroup}, each exact or {@code "*"}) or, for a request that names no resource, its
 * {@code nonResourcePath} (exact, {@code "*"}, or a prefix ending in {@code *}). Pure.
 */
public final class AbacPolicy {
    static final String API_VERSION = "abac.authorization.kubernetes.io/v1beta1";

    record Spec(
            String user,
            String group,
            boolean readonly,
            String apiGroup,
            String resource,
            String namespace,
            String nonResourcePath) {}

    private final List<Spec> policies;

    private AbacPolicy(List<Spec> policies) {
        this.policies = policies;
    }

    /** @throws IllegalArgumentException naming the line that is not a v1beta1 Policy */
    public static AbacPolicy parse(String content) {
        List<Spec> policies = new ArrayList<>();
        String[] lines = content.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            JsonNode policy;
            try {
                policy = Json.read(line.getBytes(StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("policy file line " + (i + 1) + " is not JSON: " + e.getMessage());
            }
            if (!API_VERSION.equals(policy.path("apiVersion").asText())
                    || !"Policy".equals(policy.path("kind").asText())) {
                throw new IllegalArgumentException(
                        "policy file line " + (i + 1) + " is not a Policy of " + API_VERSION);
            }
            JsonNode spec = policy.path("spec");
            policies.add(new Spec(
                    text(spec, "user"),
                    text(spec, "group"),
                    spec.path("readonly").asBoolean(false),
                    text(spec, "apiGroup"),
                    text(spec, "resource"),
                    text(spec, "namespace"),
                    text(spec, "nonResourcePath")));
        }
        return new AbacPolicy(List.copyOf(policies));
    }

    public boolean authorizes(RequestAttributes a) {
        return policies.stream()
                .anyMatch(p -> subjectMatches(p, a.user())
                        && (a.readOnly() || !p.readonly())
                        && (a.resourceRequest() ? resourceMatches(p, a) : nonResourceMatches(p, a.path())));
    }

    /** A policy names a user, a group or both; each it names must match. */
    private static boolean subjectMatches(Spec p, UserInfo user) {
        if (user == null || (p.user().isEmpty() && p.group().isEmpty())) {
            return false;
        }
        boolean userMatches =
                p.user().isEmpty() || p.user().equals("*") || p.user().equals(user.name());
        boolean groupMatches =
                p.group().isEmpty() || p.group().equals("*") || user.groups().contains(p.group());
        return userMatches && groupMatches;
    }

    private static boolean resourceMatches(Spec p, RequestAttributes a) {
        return wildcardOrEqual(p.namespace(), a.namespace())
                && wildcardOrEqual(p.resource(), a.resource())
                && wildcardOrEqual(p.apiGroup(), a.apiGroup());
    }

    private static boolean nonResourceMatches(Spec p, String path) {
        String pattern = p.nonResourcePath();
        return pattern.equals("*")
                || pattern.equals(path)
                || (pattern.endsWith("*") && path.startsWith(pattern.substring(0, pattern.length() - 1)));
    }

    private static boolean wildcardOrEqual(String pattern, String value) {
        return pattern.equals("*") || pattern.equals(value);
    }

    private static String text(JsonNode spec, String field) {
        return spec.path(field).asText("");
    }
}
