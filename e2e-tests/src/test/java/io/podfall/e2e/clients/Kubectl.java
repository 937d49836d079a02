package io.podfall.e2e.clients;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A kubectl binary pointed at the suite's API server with no kubeconfig and a discovery cache of its own. */
public final class Kubectl {
    /** This machine's kubectl, on the usual paths, or null. */
    public static final String SYSTEM = Command.find("/usr/bin/kubectl", "/usr/local/bin/kubectl");

    private final String binary;
    private final String server;
    private final Path cacheDir;

    public Kubectl(String binary, String server) {
        this.binary = binary;
        this.server = server;
        try {
            this.cacheDir = Files.createTempDirectory("podfall-kube-cache-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Command.Result run(String... args) {
        return runWithInput(null, args);
    }

    public Command.Result runWithInput(String stdin, String... args) {
        return Command.run(command(args), environment(), stdin, 120);
    }

    /** Starts a kubectl that runs until stopped, such as {@code get -w}. */
    public Command.Running start(String... args) {
        return Command.start(command(args), environment());
    }

    private List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(List.of(binary, "--server", server, "--cache-dir", cacheDir.toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** No kubeconfig: the namespace is "default", as the tests expect. */
    private Map<String, String> environment() {
        return Map.of("KUBECONFIG", cacheDir.resolve("no-kubeconfig").toString());
    }
}
