package io.podfall.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SharedValuesTest {
    record Spec(String name, String image) {}

    @Test
    void equalValuesReadApartAreOneInstance() {
        List<Spec> first = SharedValues.shared(List.of(new Spec("app", "nginx:1.27")));
        List<Spec> second = SharedValues.shared(List.of(new Spec("app", "nginx:1.27")));
        List<Spec> other = SharedValues.shared(List.of(new Spec("app", "nginx:1.28")));

        assertSame(first, second);
        assertNotSame(first, other);
        assertEquals(List.of(new Spec("app", "nginx:1.28")), other);
    }

    @Test
    void aValueIsSharedByContentWhateverItsClass() {
        Map<String, String> copied = SharedValues.shared(Map.copyOf(new java.util.HashMap<>(Map.of("app", "db"))));
        assertSame(copied, SharedValues.shared(Map.of("app", "db")));
    }

    @Test
    void nullStaysNull() {
        assertNull(SharedValues.shared(null));
    }
}
