package io.podfall.apiserver.auth;

import java.util.List;

/** Who made a request, as an authenticator tells it (staging/src/k8s.io/apiserver/pkg/authentication/user). */
public record UserInfo(String name, String uid, List<String> groups) {
    /** The group every authenticated user is in (authenticator.go's AuthenticatedGroupAdder). */
    public static final String AUTHENTICATED = "system:authenticated";

    public UserInfo {
        groups = List.copyOf(groups);
    }
}
