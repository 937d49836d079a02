package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.podfall.apiserver.registry.StatusError.FieldError;
import io.podfall.model.event.Ids;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Object names: the RFC 1123 subdomain rule pods and nodes share ({@code NameIsDNSSubdomain},
 * {@code staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go}) and {@code generateName}.
 */
final class Names {
    private static final String DNS1123_SUBDOMAIN_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
    private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(DNS1123_SUBDOMAIN_FMT);
    private static final int DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
    private static final String DNS1123_SUBDOMAIN_ERROR = "a lowercase RFC 1123 subdomain must consist of lower case "
            + "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
    /** {@code staging/src/k8s.io/apiserver/pkg/storage/names/generate.go}: 5 random characters, no vowels. */
    private static final String GENERATED_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private static final int GENERATED_LENGTH = 5;
    private static final int MAX_GENERATE_NAME_BASE = 58;

    private Names() {
    }

    /** {@code ValidateObjectMeta}'s name rules. */
    static List<FieldError> validate(ObjectMeta meta) {
        List<FieldError> errors = new ArrayList<>();
        if (meta.getName() == null || meta.getName().isEmpty()) {
            errors.add(FieldError.required("metadata.name", "name or generateName is required"));
            return errors;
        }
        String name = meta.getName();
        if (name.length() > DNS1123_SUBDOMAIN_MAX_LENGTH) {
            errors.add(FieldError.invalid("metadata.name", name, "must be no more than " + DNS1123_SUBDOMAIN_MAX_LENGTH + " characters"));
        }
        if (!DNS1123_SUBDOMAIN.matcher(name).matches()) {
            errors.add(FieldError.invalid("metadata.name", name, DNS1123_SUBDOMAIN_ERROR
                    + " (e.g. 'example.com', regex used for validation is '" + DNS1123_SUBDOMAIN_FMT + "')"));
        }
        return errors;
    }

    /** A name for {@code generateName}, derived from the request (cores draw no random numbers). */
    static String generate(String base, String requestId) {
        String prefix = base.length() > MAX_GENERATE_NAME_BASE ? base.substring(0, MAX_GENERATE_NAME_BASE) : base;
        String seed = Ids.derived("generateName", requestId).replace("-", "");
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < GENERATED_LENGTH; i++) {
            suffix.append(GENERATED_ALPHABET.charAt(Integer.parseInt(seed.substring(2 * i, 2 * i + 2), 16) % GENERATED_ALPHABET.length()));
        }
        return prefix + suffix;
    }
}
