package io.podfall.cli;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The suite's event topic, read from the same setting the services read: {@code podfall.topic} as a system property,
 * else the environment variable {@code PODFALL_TOPIC} (MicroProfile Config's order), else {@code podfall.events}. The
 * default of every {@code --topic} that reads or runs the suite, and the topic {@code import} and {@code replay --live}
 * refuse to write into unless told.
 */
final class LiveTopic {
    static final String PROPERTY = "podfall.topic";
    static final String ENV = "PODFALL_TOPIC";
    static final String DEFAULT = "podfall.events";
    /** The same lookup as a picocli default value, resolved when the command line is built. */
    static final String OPTION_DEFAULT = "${sys:" + PROPERTY + ":-${env:" + ENV + ":-" + DEFAULT + "}}";

    private LiveTopic() {}

    static String name() {
        String env = System.getenv(ENV);
        return System.getProperty(PROPERTY, env == null || env.isEmpty() ? DEFAULT : env);
    }

    /**
     * Refuses (a bad option: exit 2) to write into the live topic unless {@code intoLive}: the services there would act
     * on what is written. {@code doing} says what was asked, such as "import into".
     */
    static void refuseUnlessIntoLive(CommandLine command, String topic, boolean intoLive, String doing) {
        String live = name();
        if (topic.equals(live) && !intoLive) {
            throw new ParameterException(
                    command,
                    "refusing to " + doing + " the live topic " + live
                            + ": the services there would act on the events (use --into-live if that is what you want)");
        }
    }
}
