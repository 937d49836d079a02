package io.podfall.apiserver.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.podfall.model.apiserver.ObjectChange;
import io.podfall.model.apiserver.UpdateRequest;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import org.junit.jupiter.api.Test;

/** policy/v1 PodDisruptionBudgets: pkg/registry/policy/poddisruptionbudget/strategy.go and its validation. */
class PodDisruptionBudgetStrategyTest extends RegistryFixture {
    private static final String PDBS = "poddisruptionbudgets";

    @Test
    void aCreatedBudgetStartsAtGenerationOneWithItsStatusReset() {
        PodDisruptionBudget pdb = stored(create(PDBS, "default", json("""
                {"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web-pdb"},
                 "spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"web"}}},
                 "status":{"disruptionsAllowed":5,"currentHealthy":5}}""")));

        assertEquals(1L, pdb.getMetadata().getGeneration());
        assertEquals(null, pdb.getStatus().getDisruptionsAllowed());
    }

    @Test
    void aSpecChangeIsANewGenerationAndAStatusWriteIsNot() {
        create(PDBS, "default", budget("\"minAvailable\":2"));
        JsonNode status = json("""
                {"metadata":{"name":"web-pdb"},"spec":{"minAvailable":9},"status":{"disruptionsAllowed":1}}""");
        PodDisruptionBudget afterStatus = stored(update("status", status));
        assertEquals(1L, afterStatus.getMetadata().getGeneration());
        assertEquals(2, afterStatus.getSpec().getMinAvailable().getIntVal(), "/status keeps the spec");
        assertEquals(1, afterStatus.getStatus().getDisruptionsAllowed());

        PodDisruptionBudget afterSpec = stored(update(null, budget("\"maxUnavailable\":\"25%\"")));

        assertEquals(2L, afterSpec.getMetadata().getGeneration());
        assertEquals(1, afterSpec.getStatus().getDisruptionsAllowed(), "an update keeps the status");
    }

    @Test
    void minAvailableAndMaxUnavailableAreExclusiveAndAtMostAHundredPercent() {
        Status both = rejection(create(PDBS, "default", budget("\"minAvailable\":1,\"maxUnavailable\":1")));
        assertEquals(422, both.getCode());
        assertTrue(both.getMessage().contains("minAvailable and maxUnavailable cannot be both set"), both.getMessage());

        Status over = rejection(create(PDBS, "default", budget("\"maxUnavailable\":\"150%\"")));
        assertEquals(
                "PodDisruptionBudget.policy \"web-pdb\" is invalid: spec.maxUnavailable: Invalid value: \"150%\": "
                        + "must not be greater than 100%",
                over.getMessage());
        Status negative = rejection(create(PDBS, "default", budget("\"minAvailable\":-1")));
        assertEquals(
                "spec.minAvailable", negative.getDetails().getCauses().get(0).getField());
        Status policy = rejection(
                create(PDBS, "default", budget("\"minAvailable\":1,\"unhealthyPodEvictionPolicy\":\"Sometimes\"")));
        assertEquals(
                "FieldValueNotSupported", policy.getDetails().getCauses().get(0).getReason());
        assertEquals(0, objects());
    }

    @Test
    void aNegativeCountInAStatusWriteIsInvalid() {
        create(PDBS, "default", budget("\"minAvailable\":2"));

        Status refused = rejection(
                update("status", json("{\"metadata\":{\"name\":\"web-pdb\"},\"status\":{\"disruptionsAllowed\":-1}}")));

        assertEquals(
                "status.disruptionsAllowed",
                refused.getDetails().getCauses().get(0).getField());
    }

    private static JsonNode budget(String spec) {
        return json(
                "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"web-pdb\"},"
                        + "\"spec\":{" + spec + ",\"selector\":{\"matchLabels\":{\"app\":\"web\"}}}}");
    }

    private Effects update(String subresource, JsonNode object) {
        return handle(request(
                Registry.SOURCE,
                EventTypes.UPDATE_REQUESTED,
                "namespaces/default/poddisruptionbudgets/web-pdb",
                new UpdateRequest(PDBS, "default", "web-pdb", subresource, object)));
    }

    private static PodDisruptionBudget stored(Effects effects) {
        assertEquals(1, effects.events().size(), effects.events().toString());
        return effects.events().get(0).data(ObjectChange.class).object(PodDisruptionBudget.class);
    }
}
