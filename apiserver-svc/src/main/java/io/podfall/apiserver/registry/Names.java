package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.podfall.apiserver.registry.StatusError.FieldError;
import io.podfall.model.event.Ids;
import io.podfall.model.k8s.ResourceType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Object names, by the rule of their kind ({@code staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go}):
 * a namespace's is an RFC 1123 label ({@code ValidateNamespaceName}), a service's an RFC 1035 label
 * ({@code ValidateServiceName}), every other kind's an RFC 1123 subdomain ({@code NameIsDNSSubdomain}); and
 * {@code generateName}.
 */
final class Names {
    private static final Rule DNS1123_SUBDOMAIN = new Rule(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
            253,
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
                    + "and end with an alphanumeric character",
            "example.com");
    private static final Rule DNS1123_LABEL = new Rule(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
            63,
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
                    + "with an alphanumeric character",
            "my-name",
            "123-abc");
    private static final Rule DNS1035_LABEL = new Rule(
            "[a-z]([-a-z0-9]*[a-z0-9])?",
            63,
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, "
                    + "and end with an alphanumeric character",
            "my-name",
            "abc-123");
    /** {@code staging/src/k8s.io/apiserver/pkg/storage/names/generate.go}: 5 random characters, no vowels. */
    private static final String GENERATED_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    private static final int GENERATED_LENGTH = 5;
    private static final int MAX_GENERATE_NAME_BASE = 58;

    private Names() {}

    /** {@code ValidateObjectMeta}'s name rules for an object of {@code type}. */
    static List<FieldError> validate(ResourceType type, ObjectMeta meta) {
        Rule rule = switch (type) {
            case NAMESPACES -> DNS1123_LABEL;
            case SERVICES -> DNS1035_LABEL;
            default -> DNS1123_SUBDOMAIN;
        };
        List<FieldError> errors = new ArrayList<>();
        String generateName = meta.getGenerateName();
        if (generateName != null && !generateName.isEmpty()) {
            // A prefix: a trailing '-' is masked, as upstream's maskTrailingDash (objectmeta.go,
            // ValidateObjectMetaAccessor).
            String masked = generateName.endsWith("-")
                    ? generateName.substring(0, generateName.length() - 1) + "a"
                    : generateName;
            errors.addAll(rule.check("metadata.generateName", generateName, masked));
        }
        if (meta.getName() == null || meta.getName().isEmpty()) {
            errors.add(FieldError.required("metadata.name", "name or generateName is required"));
            return errors;
        }
        errors.addAll(rule.check("metadata.name", meta.getName(), meta.getName()));
        return errors;
    }

    /** A name for {@code generateName}, derived from the request (cores draw no random numbers). */
    static String generate(String base, String requestId) {
        return generate(base, requestId, 0);
    }

    /** The name of a later attempt after a conflict ({@link Registry}'s retry), derived from the request too. */
    static String generate(String base, String requestId, int attempt) {
        String prefix = base.length() > MAX_GENERATE_NAME_BASE ? base.substring(0, MAX_GENERATE_NAME_BASE) : base;
        String seed = Ids.derived("generateName", attempt == 0 ? requestId : requestId + "#" + attempt)
                .replace("-", "");
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < GENERATED_LENGTH; i++) {
            suffix.append(GENERATED_ALPHABET.charAt(
                    Integer.parseInt(seed.substring(2 * i, 2 * i + 2), 16) % GENERATED_ALPHABET.length()));
        }
        return prefix + suffix;
    }

    /**
     * A name format: its regex, its maximum length, and the message {@code RegexError} builds from them (the examples
     * joined as upstream joins them, hence the double space before "or").
     */
    private record Rule(Pattern pattern, String format, int maxLength, String message) {
        Rule(String format, int maxLength, String description, String... examples) {
            this(
                    Pattern.compile(format),
                    format,
                    maxLength,
                    description + " (e.g. "
                            + String.join(
                                    " or ",
                                    Arrays.stream(examples)
                                            .map(e -> "'" + e + "', ")
                                            .toList())
                            + "regex used for validation is '" + format + "')");
        }

        /** The errors of {@code checked}, reported with the {@code value} sent. */
        List<FieldError> check(String field, String value, String checked) {
            List<FieldError> errors = new ArrayList<>();
            if (checked.length() > maxLength) {
                errors.add(FieldError.invalid(field, value, "must be no more than " + maxLength + " characters"));
            }
            if (!pattern.matcher(checked).matches()) {
                errors.add(FieldError.invalid(field, value, message));
            }
            return errors;
        }
    }
}
