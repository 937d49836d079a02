package io.podfall.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecentlyUsedTest {
    private final List<String> rested = new ArrayList<>();
    private final RecentlyUsed<String, String> recent = new RecentlyUsed<>(2, rested::add);

    @Test
    void theValueUsedLeastRecentlyRestsOnceThereIsOneTooMany() {
        recent.used("a", "A");
        recent.used("b", "B");
        recent.used("a", "A");
        recent.used("c", "C");

        assertEquals(List.of("B"), rested);
    }

    @Test
    void aValueUsedAgainAfterItRestedTakesAPlaceAgain() {
        recent.used("a", "A");
        recent.used("b", "B");
        recent.used("c", "C");
        recent.used("a", "A");

        assertEquals(List.of("A", "B"), rested);
    }

    @Test
    void aForgottenValueFreesItsPlaceAndNeverRests() {
        recent.used("a", "A");
        recent.used("b", "B");
        recent.forget("a");
        recent.used("c", "C");
        recent.used("d", "D");

        assertEquals(List.of("B"), rested);
    }
}
