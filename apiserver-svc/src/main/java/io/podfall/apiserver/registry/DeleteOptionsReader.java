package io.podfall.apiserver.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.podfall.model.Json;

/**
 * DeleteOptions as Go's JSON decoder reads them into {@code metav1.DeleteOptions}: a field gets a value of its own type
 * or the body is refused ({@code json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of
 * type int64}). The contract's tolerant mapper would read {@code "gracePeriodSeconds":"30"} as 30 and 1.5 as 1, and
 * carry out a delete kube-apiserver refuses.
 */
public final class DeleteOptionsReader {
    private static final ObjectMapper STRICT = strict();

    private DeleteOptionsReader() {}

    /** @throws StatusError 400 BadRequest, its message {@code why} and the decoder's */
    public static DeleteOptions read(JsonNode options, String why) {
        try {
            return STRICT.treeToValue(options, DeleteOptions.class);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            String detail = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw StatusError.badRequest(why + detail);
        }
    }

    /**
     * Go's decoder converts nothing: no string or float into an integer, no number into a string, no 0/1 into a bool.
     */
    private static ObjectMapper strict() {
        ObjectMapper mapper = Json.MAPPER.copy();
        mapper.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Boolean)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }
}
