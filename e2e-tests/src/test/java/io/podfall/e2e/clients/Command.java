package io.podfall.e2e.clients;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a real client program (kubectl, python3) as a user would, and keeps what it printed. */
public final class Command {
    private Command() {
    }

    public record Result(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\nstdout: " + stdout + "\nstderr: " + stderr;
        }
    }

    public static Result run(List<String> command, Map<String, String> env, String stdin, long timeoutSeconds) {
        try {
            Path out = Files.createTempFile("podfall-cmd-", ".out");
            Path err = Files.createTempFile("podfall-cmd-", ".err");
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            try (var in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException("timed out after " + timeoutSeconds + " s: " + command
                        + "\nstdout: " + Files.readString(out) + "\nstderr: " + Files.readString(err));
            }
            Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The first of {@code candidates} that is an executable file, or null. */
    public static String find(String... candidates) {
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return null;
    }
}
