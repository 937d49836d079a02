package io.podfall.model.event;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the contract allows on the log: the types of {@link EventTypes}, each from the sources that may append it.
 *
 * <p>A fact is appended only by the component that owns its vocabulary (only a runtime says a container exited, only
 * the API server says what it stored, only a kubelet that a restart of a pod was requested). A request to the API
 * server, the runtime or a CSI plugin is in the vocabulary of the component asked, and comes from whoever may ask it:
 * the API server is asked by itself (for an HTTP call), by controllers and by kubelets; a node's runtime and CSI plugin
 * only by a kubelet. A record that breaks this is a producer's bug or a forgery, and a service that acted on it could,
 * say, release a pod's IP because a kubelet "said" its container exited. What happens to a node's machine
 * ({@code host.*}, operator input) comes from {@code /host/<node>}: the machine is the actor, no Kubernetes component.
 */
public final class EventCatalogue {
    /** Every type constant of {@link EventTypes}, read from the class so the two cannot drift apart. */
    static final Set<String> TYPES = Arrays.stream(EventTypes.class.getFields())
            .filter(f -> Modifier.isStatic(f.getModifiers()) && f.getType() == String.class)
            .map(EventCatalogue::value)
            .collect(Collectors.toUnmodifiableSet());

    /** The components that take requests in their own vocabulary, and who may send them. */
    private static final Map<String, Set<String>> ASKED_BY = Map.of(
            "apiserver", Set.of("apiserver", "controller", "kubelet"),
            "runtime", Set.of("kubelet"),
            "csi", Set.of("kubelet"));

    private EventCatalogue() {}

    /**
     * Throws unless {@code event} is of a catalogued type and from a source that may append it.
     *
     * @throws UnreadableEventException {@link UnreadableEventException.Kind#UNKNOWN_TYPE} or
     *     {@link UnreadableEventException.Kind#WRONG_SOURCE}, with the reason
     */
    public static void check(Event event) {
        check(event.type(), event.source());
    }

    /** {@link #check(Event)} of the attributes it reads: an event's type and source. */
    public static void check(String type, String source) {
        if (!TYPES.contains(type)) {
            throw new UnreadableEventException(
                    UnreadableEventException.Kind.UNKNOWN_TYPE,
                    "unknown event type " + type + " (not in the catalogue of " + EventCodec.DATA_SCHEMA + ")");
        }
        String owner = owner(type);
        String sender = component(source.startsWith("/") ? source.substring(1) : "", '/');
        boolean request = isRequest(type);
        if (request ? !ASKED_BY.get(owner).contains(sender) : !sender.equals(owner)) {
            throw new UnreadableEventException(
                    UnreadableEventException.Kind.WRONG_SOURCE,
                    type + " may not come from " + source + " ("
                            + (request
                                    ? "a request to the " + owner + " is not sent by that source"
                                    : "only the " + owner + " appends it")
                            + ")");
        }
    }

    /** The component whose vocabulary {@code type} is in: {@code runtime} of {@code runtime.ContainerExited}. */
    public static String owner(String type) {
        return component(type, '.');
    }

    /** Whether {@code type} asks its owner for something (a request) rather than saying what happened (a fact). */
    public static boolean isRequest(String type) {
        return type.endsWith("Requested") && ASKED_BY.containsKey(owner(type));
    }

    /** The text before the first {@code separator}: {@code kubelet} of {@code kubelet/node-1}. */
    private static String component(String name, char separator) {
        int end = name.indexOf(separator);
        return end < 0 ? name : name.substring(0, end);
    }

    private static String value(Field f) {
        try {
            return (String) f.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
