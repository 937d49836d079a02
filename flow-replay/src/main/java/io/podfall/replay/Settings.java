package io.podfall.replay;

import io.podfall.kubelet.podworkers.Compat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The settings a what-if replay changes, for every kubelet, whatever the recording implies: the services' own
 * configuration keys (docs/configuration.md, read by kubelet-svc's KubeletProducer). Only settings of the cores the
 * engine runs can change; the others (the broker, the topic, the time scale) mean nothing in process. A null is a
 * setting left as the recording implies.
 */
public record Settings(
        Boolean shortenedGraceKillsAgain, Boolean forceDeleteUsesSpecGrace, Long evictionMaxPodGracePeriod) {
    public static final Settings NONE = new Settings(null, null, null);
    public static final String SHORTENED_GRACE_KILLS_AGAIN =
            "podfall.kubelet.compat." + Compat.SHORTENED_GRACE_KILLS_AGAIN;
    /** The switch's old name, the other way round: {@code true} is the release's default, {@code false} the fix. */
    private static final String SHORTENED_GRACE_IGNORED = "podfall.kubelet.compat." + Compat.SHORTENED_GRACE_IGNORED;

    public static final String FORCE_DELETE_USES_SPEC_GRACE =
            "podfall.kubelet.compat." + Compat.FORCE_DELETE_USES_SPEC_GRACE;
    public static final String EVICTION_MAX_POD_GRACE_PERIOD = "podfall.kubelet.eviction-max-pod-grace-period";
    private static final List<String> KEYS =
            List.of(SHORTENED_GRACE_KILLS_AGAIN, FORCE_DELETE_USES_SPEC_GRACE, EVICTION_MAX_POD_GRACE_PERIOD);
    /** What a key may go without: the issue writes {@code kubelet.compat.<switch>}. */
    private static final String PREFIX = "podfall.";

    /**
     * Reads {@code KEY=VALUE} assignments, a later one of a key winning; a key is a configuration key, or the same
     * without {@code podfall.} ({@code kubelet.compat.shortened-grace-kills-again}). The switch's old name,
     * {@code shortened-grace-ignored}, is still read, with its old meaning.
     *
     * @throws IllegalArgumentException naming the assignment and what it could be, when a key is unknown or a value is
     *     not one its key takes
     */
    public static Settings parse(List<String> assignments) {
        Settings s = NONE;
        for (String a : assignments) {
            int eq = a.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("not KEY=VALUE: " + a);
            }
            String given = a.substring(0, eq).trim();
            String key = given.startsWith(PREFIX) ? given : PREFIX + given;
            String value = a.substring(eq + 1).trim();
            s = switch (key) {
                case SHORTENED_GRACE_KILLS_AGAIN ->
                    new Settings(bool(key, value), s.forceDeleteUsesSpecGrace, s.evictionMaxPodGracePeriod);
                case SHORTENED_GRACE_IGNORED ->
                    new Settings(!bool(key, value), s.forceDeleteUsesSpecGrace, s.evictionMaxPodGracePeriod);
                case FORCE_DELETE_USES_SPEC_GRACE ->
                    new Settings(s.shortenedGraceKillsAgain, bool(key, value), s.evictionMaxPodGracePeriod);
                case EVICTION_MAX_POD_GRACE_PERIOD ->
                    new Settings(s.shortenedGraceKillsAgain, s.forceDeleteUsesSpecGrace, seconds(key, value));
                default ->
                    throw new IllegalArgumentException(
                            "unknown setting " + given + "; a replay can set " + String.join(", ", KEYS));
            };
        }
        return s;
    }

    /** A kubelet's settings with these set. */
    public Engine.KubeletSettings applied(Engine.KubeletSettings kubelet) {
        Compat c = kubelet.compat();
        return new Engine.KubeletSettings(
                kubelet.nodes(),
                new Compat(
                        shortenedGraceKillsAgain != null ? shortenedGraceKillsAgain : c.shortenedGraceKillsAgain(),
                        forceDeleteUsesSpecGrace != null ? forceDeleteUsesSpecGrace : c.forceDeleteUsesSpecGrace()),
                evictionMaxPodGracePeriod != null
                        ? OptionalLong.of(evictionMaxPodGracePeriod)
                        : kubelet.evictionMaxPodGracePeriod());
    }

    public boolean isEmpty() {
        return equals(NONE);
    }

    /** {@code podfall.kubelet.compat.shortened-grace-kills-again=true, …}: what is set, in the order of the keys. */
    @Override
    public String toString() {
        List<String> set = new ArrayList<>();
        List<Object> values =
                java.util.Arrays.asList(shortenedGraceKillsAgain, forceDeleteUsesSpecGrace, evictionMaxPodGracePeriod);
        for (int i = 0; i < KEYS.size(); i++) {
            if (values.get(i) != null) {
                set.add(KEYS.get(i) + "=" + values.get(i));
            }
        }
        return String.join(", ", set);
    }

    private static boolean bool(String key, String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(key, v, "true or false");
        };
    }

    private static long seconds(String key, String v) {
        try {
            long s = Long.parseLong(v);
            if (s >= 0) {
                return s;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw bad(key, v, "whole seconds, 0 or more");
    }

    private static IllegalArgumentException bad(String key, String value, String expected) {
        return new IllegalArgumentException("bad value for " + key + ": '" + value + "' (" + expected + ")");
    }
}
