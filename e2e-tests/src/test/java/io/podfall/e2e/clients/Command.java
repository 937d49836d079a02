package io.podfall.e2e.clients;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/** Runs a real client program (kubectl, python3) as a user would, and keeps what it printed. */
public final class Command {
    private Command() {}

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
            ProcessBuilder pb =
                    new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            try (var in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException("timed out after " + timeoutSeconds + " s: " + command + "\nstdout: "
                        + Files.readString(out) + "\nstderr: " + Files.readString(err));
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

    /**
     * Starts a program that runs until stopped (a watch), with standard error merged into what it prints. Close the
     * result to stop it.
     */
    public static Running start(List<String> command, Map<String, String> env) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putAll(env);
            return new Running(pb.start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A program started by {@link #start}: the lines it has printed so far, read as they come. */
    public static final class Running implements AutoCloseable {
        private final Process process;
        private final List<String> lines = new CopyOnWriteArrayList<>();

        private Running(Process process) {
            this.process = process;
            Thread reader = new Thread(
                    () -> {
                        try (var in = new BufferedReader(
                                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                            in.lines().forEach(lines::add);
                        } catch (IOException | UncheckedIOException e) {
                            // the process was stopped: what it printed is kept
                        }
                    },
                    "command-output");
            reader.setDaemon(true);
            reader.start();
        }

        /** Waits until a printed line matches, and returns it; fails with all output after the timeout. */
        public String awaitLine(Predicate<String> matches, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (String line : lines) {
                    if (matches.test(line)) {
                        return line;
                    }
                }
                if (!process.isAlive() && lines.stream().noneMatch(matches)) {
                    throw new AssertionError("exited with " + process.exitValue() + " before printing the line:\n"
                            + String.join("\n", lines));
                }
                LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
            }
            throw new AssertionError("no such line within " + timeout + ":\n" + String.join("\n", lines));
        }

        public List<String> lines() {
            return List.copyOf(lines);
        }

        @Override
        public void close() {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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
