package io.podfall.apiserver.auth;

import java.util.Locale;
import java.util.Set;

/**
 * What an authorizer decides on (staging/src/k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go Attributes),
 * with the verb as the request info resolver derives it from the method and path
 * (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go): GET of a collection is {@code list}, or
 * {@code watch} with {@code ?watch=true}; of an object {@code get}; POST {@code create}; PUT {@code update}; PATCH
 * {@code patch}; DELETE of an object {@code delete}, of a collection {@code deletecollection}. A request that names no
 * resource (discovery, {@code /version}) has the lower-cased method as its verb and is matched by path.
 *
 * @param namespace "" for a cluster-scoped resource, or for all namespaces
 */
public record RequestAttributes(
        UserInfo user,
        String verb,
        boolean resourceRequest,
        String apiGroup,
        String resource,
        String subresource,
        String namespace,
        String name,
        String path) {
    private static final Set<String> READ_ONLY = Set.of("get", "list", "watch");

    public static RequestAttributes resource(
            UserInfo user,
            String method,
            boolean watch,
            String apiGroup,
            String resource,
            String subresource,
            String namespace,
            String name,
            String path) {
        String verb = switch (method) {
            case "GET", "HEAD" -> name == null ? (watch ? "watch" : "list") : "get";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> name == null ? "deletecollection" : "delete";
            default -> method.toLowerCase(Locale.ROOT);
        };
        return new RequestAttributes(
                user, verb, true, apiGroup, resource, subresource, namespace == null ? "" : namespace, name, path);
    }

    public static RequestAttributes nonResource(UserInfo user, String method, String path) {
        return new RequestAttributes(user, method.toLowerCase(Locale.ROOT), false, null, null, null, "", null, path);
    }

    public boolean readOnly() {
        return READ_ONLY.contains(verb);
    }

    /**
     * Why the request is refused, in kube-apiserver's words (responsewriters/errors.go forbiddenMessage): {@code User
     * "bob" cannot delete resource "pods" in API group "" in the namespace "default"}.
     */
    public String forbiddenMessage() {
        String who = user == null ? "" : user.name();
        if (!resourceRequest) {
            return "User \"" + who + "\" cannot " + verb + " path \"" + path + "\"";
        }
        String what = subresource == null ? resource : resource + "/" + subresource;
        String where = namespace.isEmpty() ? "at the cluster scope" : "in the namespace \"" + namespace + "\"";
        return "User \"" + who + "\" cannot " + verb + " resource \"" + what + "\" in API group \"" + apiGroup + "\" "
                + where;
    }
}
