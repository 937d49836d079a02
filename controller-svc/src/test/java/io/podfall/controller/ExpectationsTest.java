package io.podfall.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.controller.Expectations.Expectation;
import io.podfall.controller.Expectations.Kind;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExpectationsTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final String RS = "default/web-1";

    @Test
    void anOwnerIsSatisfiedForAKindOnceNoRequestOfItIsInFlight() {
        Expectations expectations = new Expectations();
        expectations.expect("create-1", new Expectation(RS, Kind.CREATION, null, T0));
        expectations.expect("status-1", new Expectation(RS, Kind.WRITE, null, T0));

        assertFalse(expectations.satisfied(RS, Expectations.POD_CHANGES));
        assertFalse(expectations.satisfied(RS, Set.of(Kind.WRITE)));
        expectations.observe("status-1");
        assertTrue(expectations.satisfied(RS, Set.of(Kind.WRITE)), "the status written");
        assertFalse(expectations.satisfied(RS, Expectations.POD_CHANGES), "the creation still in flight");
        expectations.observe("create-1");
        assertTrue(expectations.satisfied(RS));
    }

    @Test
    void aPodSeenTerminatingFulfilsTheDeletionsOfItAndNoOther() {
        Expectations expectations = new Expectations();
        expectations.expect("delete-a", new Expectation(RS, Kind.DELETION, "uid-a", T0));
        expectations.expect("delete-b", new Expectation(RS, Kind.DELETION, "uid-b", T0));

        assertEquals(List.of(RS), expectations.deletionObserved("uid-a"));
        assertEquals(List.of(), expectations.deletionObserved("uid-a"), "fulfilled once");
        assertEquals(
                Optional.empty(), expectations.observe("delete-a"), "its answer, when it comes, is no longer awaited");
        assertFalse(expectations.satisfied(RS, Expectations.POD_CHANGES), "uid-b's deletion still in flight");
        expectations.observe("delete-b");
        assertEquals(List.of(), expectations.deletionObserved("uid-b"), "answered: nothing left to fulfil");
        assertTrue(expectations.satisfied(RS));
    }

    @Test
    void aForgottenOwnerLeavesNothingBehind() {
        Expectations expectations = new Expectations();
        expectations.expect("delete-a", new Expectation(RS, Kind.DELETION, "uid-a", T0));
        expectations.expect("create-1", new Expectation("default/other", Kind.CREATION, null, T0));

        expectations.forget(RS);

        assertTrue(expectations.satisfied(RS));
        assertEquals(List.of(), expectations.deletionObserved("uid-a"));
        assertFalse(expectations.satisfied("default/other"), "another owner's request kept");
    }

    @Test
    void aRequestExpectedAgainCountsOnceForItsLatestOwner() {
        Expectations expectations = new Expectations();
        expectations.expect("req-1", new Expectation(RS, Kind.CREATION, null, T0));
        expectations.expect("req-1", new Expectation("default/other", Kind.WRITE, null, T0));

        assertTrue(expectations.satisfied(RS), "no longer the first owner's");
        expectations.observe("req-1");
        assertTrue(expectations.satisfied("default/other"));
    }

    @Test
    void requestsOlderThanTheTimeoutExpire() {
        Expectations expectations = new Expectations();
        expectations.expect("create-1", new Expectation(RS, Kind.CREATION, null, T0));
        expectations.expect("create-2", new Expectation(RS, Kind.CREATION, null, T0.plusSeconds(60)));

        assertEquals(Optional.of(T0.plus(Expectations.TIMEOUT)), expectations.nextTimeout(RS));
        assertTrue(expectations.expire(RS, T0.plus(Expectations.TIMEOUT)));
        assertEquals(Optional.of(T0.plusSeconds(60).plus(Expectations.TIMEOUT)), expectations.nextTimeout(RS));
        assertFalse(expectations.expire(RS, T0.plus(Expectations.TIMEOUT)), "the newer one has not waited long enough");
    }
}
