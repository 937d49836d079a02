package io.podfall.apiserver.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.podfall.model.Json;
import io.podfall.model.apiserver.PatchRequest;
import io.podfall.model.k8s.ResourceType;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class PatchesTest {

    // --- RFC 7386 merge patch ---

    @Test
    void mergePatchMergesObjectsRemovesNullsAndReplacesLists() {
        JsonNode result = apply(
                PatchRequest.MERGE,
                "{\"a\":{\"b\":1,\"c\":2},\"l\":[1,2],\"x\":1}",
                "{\"a\":{\"b\":null,\"d\":3},\"l\":[3],\"x\":null}");

        assertEquals(json("{\"a\":{\"c\":2,\"d\":3},\"l\":[3]}"), result);
    }

    // --- RFC 6902 JSON patch ---

    @Test
    void jsonPatchAppliesEveryOperation() {
        JsonNode result = apply(
                PatchRequest.JSON,
                "{\"a\":[1,2],\"b\":{\"c\":1}}",
                "["
                        + "{\"op\":\"add\",\"path\":\"/a/1\",\"value\":9},"
                        + "{\"op\":\"replace\",\"path\":\"/b/c\",\"value\":2},"
                        + "{\"op\":\"test\",\"path\":\"/b/c\",\"value\":2},"
                        + "{\"op\":\"copy\",\"from\":\"/b\",\"path\":\"/d\"},"
                        + "{\"op\":\"move\",\"from\":\"/d/c\",\"path\":\"/e\"},"
                        + "{\"op\":\"remove\",\"path\":\"/a/0\"}]");

        assertEquals(json("{\"a\":[9,2],\"b\":{\"c\":2},\"d\":{},\"e\":2}"), result);
    }

    @Test
    void aFailedTestOperationIs422() {
        StatusError e = assertThrows(
                StatusError.class,
                () -> apply(PatchRequest.JSON, "{\"a\":1}", "[{\"op\":\"test\",\"path\":\"/a\",\"value\":2}]"));

        assertEquals(422, e.status().getCode());
    }

    @Test
    void aJsonPatchThatIsNoListIsABadRequest() {
        StatusError e = assertThrows(StatusError.class, () -> apply(PatchRequest.JSON, "{}", "{\"op\":\"add\"}"));

        assertEquals(400, e.status().getCode());
    }

    // --- strategic merge patch ---

    @Test
    void kubectlApplysContainerPatchMergesByNameAndKeepsTheOrder() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"spec\":{\"containers\":[{\"name\":\"web2\",\"image\":\"nginx:1.20\",\"ports\":[{\"containerPort\":80}]}]}}",
                "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"web2\"}],\"containers\":[{\"image\":\"nginx:1.21\",\"name\":\"web2\"}]}}");

        assertEquals(
                json(
                        "{\"spec\":{\"containers\":[{\"name\":\"web2\",\"image\":\"nginx:1.21\",\"ports\":[{\"containerPort\":80}]}]}}"),
                result);
    }

    @Test
    void kubectlApplysDeleteDirectivesRemoveListEntriesAndNullsRemoveKeys() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"metadata\":{\"labels\":{\"tier\":\"web\",\"app\":\"a\"}},"
                        + "\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:1\",\"env\":[{\"name\":\"X\",\"value\":\"1\"}],"
                        + "\"ports\":[{\"containerPort\":80},{\"containerPort\":81}]},{\"name\":\"b\",\"image\":\"busybox\"}]}}",
                "{\"metadata\":{\"labels\":{\"tier\":null}},\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"a\"}],"
                        + "\"containers\":[{\"$setElementOrder/ports\":[{\"containerPort\":80}],\"args\":[\"x\"],\"env\":null,"
                        + "\"image\":\"nginx:2\",\"name\":\"a\",\"ports\":[{\"$patch\":\"delete\",\"containerPort\":81}]},"
                        + "{\"$patch\":\"delete\",\"name\":\"b\"}]}}");

        assertEquals(
                json(
                        "{\"metadata\":{\"labels\":{\"app\":\"a\"}},\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:2\","
                                + "\"ports\":[{\"containerPort\":80}],\"args\":[\"x\"]}]}}"),
                result);
    }

    @Test
    void setElementOrderReordersTheMergedList() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"spec\":{\"volumes\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
                "{\"spec\":{\"$setElementOrder/volumes\":[{\"name\":\"c\"},{\"name\":\"b\"},{\"name\":\"a\"}],\"volumes\":[{\"name\":\"c\"}]}}");

        assertEquals(json("{\"spec\":{\"volumes\":[{\"name\":\"c\"},{\"name\":\"b\"},{\"name\":\"a\"}]}}"), result);
    }

    @Test
    void envMergesByNameAndVolumeMountsByMountPath() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"X\",\"value\":\"1\"}],"
                        + "\"volumeMounts\":[{\"mountPath\":\"/data\",\"name\":\"d\"}]}]}}",
                "{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"Y\",\"value\":\"2\"}],"
                        + "\"volumeMounts\":[{\"mountPath\":\"/data\",\"readOnly\":true}]}]}}");

        assertEquals(
                json(
                        "{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"X\",\"value\":\"1\"},{\"name\":\"Y\",\"value\":\"2\"}],"
                                + "\"volumeMounts\":[{\"mountPath\":\"/data\",\"name\":\"d\",\"readOnly\":true}]}]}}"),
                result);
    }

    @Test
    void finalizersAreASetMergedWithThePatchsItems() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}",
                "{\"metadata\":{\"finalizers\":[\"b\",\"c\"]}}");

        assertEquals(json("{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}"), result);
    }

    @Test
    void deleteFromPrimitiveListRemovesFinalizers() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}",
                "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"a\"]}}");

        assertEquals(json("{\"metadata\":{\"finalizers\":[\"b\"]}}"), result);
    }

    @Test
    void listsWithoutAMergeKeyAreReplaced() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"spec\":{\"tolerations\":[{\"key\":\"a\"}],\"containers\":[{\"name\":\"a\",\"args\":[\"1\",\"2\"]}]}}",
                "{\"spec\":{\"tolerations\":[{\"key\":\"b\"}],\"containers\":[{\"name\":\"a\",\"args\":[\"3\"]}]}}");

        assertEquals(
                json(
                        "{\"spec\":{\"tolerations\":[{\"key\":\"b\"}],\"containers\":[{\"name\":\"a\",\"args\":[\"3\"]}]}}"),
                result);
    }

    @Test
    void patchReplaceReplacesAMapOrAList() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"metadata\":{\"labels\":{\"a\":\"1\"}},\"spec\":{\"volumes\":[{\"name\":\"a\"}]}}",
                "{\"metadata\":{\"labels\":{\"$patch\":\"replace\",\"b\":\"2\"}},\"spec\":{\"volumes\":[{\"$patch\":\"replace\"},{\"name\":\"b\"}]}}");

        assertEquals(
                json("{\"metadata\":{\"labels\":{\"b\":\"2\"}},\"spec\":{\"volumes\":[{\"name\":\"b\"}]}}"), result);
    }

    @Test
    void retainKeysDropsTheKeysItDoesNotName() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"spec\":{\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":1}}}}",
                "{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"],\"type\":\"Recreate\"}}}");

        assertEquals(json("{\"spec\":{\"strategy\":{\"type\":\"Recreate\"}}}"), result);
    }

    @Test
    void conditionsMergeByType() {
        JsonNode result = apply(
                PatchRequest.STRATEGIC,
                "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},"
                        + "{\"type\":\"PodScheduled\",\"status\":\"True\"}]}}",
                "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}");

        assertEquals(
                json(
                        "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"},{\"type\":\"PodScheduled\",\"status\":\"True\"}]}}"),
                result);
    }

    @Test
    void aMergeListItemWithoutItsKeyIsABadRequest() {
        StatusError e = assertThrows(
                StatusError.class,
                () -> apply(
                        PatchRequest.STRATEGIC,
                        "{\"spec\":{\"containers\":[]}}",
                        "{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}"));

        assertEquals(400, e.status().getCode());
        assertEquals(
                "map: {\"image\":\"x\"} does not contain declared merge key: name",
                e.status().getMessage());
    }

    private static JsonNode apply(String type, String original, String patch) {
        return Patches.apply(type, ResourceType.PODS, json(original), json(patch));
    }

    private static JsonNode json(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
