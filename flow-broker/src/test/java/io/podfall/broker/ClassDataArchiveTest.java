package io.podfall.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each test runs real JVMs from a jar of one class, as the broker's launcher runs the broker's. */
class ClassDataArchiveTest {
    @TempDir
    static Path build;

    private static Path jar;

    @BeforeAll
    static void aJarOfOneClass() throws IOException {
        Path source = Files.writeString(
                build.resolve("Hello.java"),
                "public class Hello { public static void main(String[] a) { System.out.println(\"hello\"); } }");
        assertEquals(
                0,
                ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", build.toString(), source.toString()));
        jar = build.resolve("hello.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("Hello.class"));
            out.write(Files.readAllBytes(build.resolve("Hello.class")));
            out.closeEntry();
        }
    }

    @Test
    void theFirstRunWritesTheArchiveAtExitAndTheNextRunsMapIt(@TempDir Path cache) throws Exception {
        ClassDataArchive first =
                ClassDataArchive.of("hello", jar.toString(), cache).orElseThrow();
        assertTrue(
                first.jvmOptions().get(0).startsWith("-XX:ArchiveClassesAtExit="),
                first.jvmOptions().toString());
        assertEquals(0, run(first.jvmOptions(), jar.toString()));
        assertFalse(Files.exists(first.path()), "named only once the JVM is gone");
        first.keep();

        ClassDataArchive next =
                ClassDataArchive.of("hello", jar.toString(), cache).orElseThrow();
        assertEquals(first.path(), next.path());
        assertEquals(List.of("-XX:SharedArchiveFile=" + first.path()), next.jvmOptions());
        // -Xshare:on: a JVM that cannot map the archive does not start.
        List<String> strict = new ArrayList<>(next.jvmOptions());
        strict.add("-Xshare:on");
        assertEquals(0, run(strict, jar.toString()));
        assertEquals(
                List.of(),
                Files.list(cache).filter(f -> f.toString().endsWith(".tmp")).toList());
    }

    @Test
    void aRebuiltJarGetsAnArchiveOfItsOwnThatReplacesTheStaleOne(@TempDir Path cache) throws Exception {
        ClassDataArchive before =
                train(ClassDataArchive.of("hello", jar.toString(), cache).orElseThrow());
        Files.setLastModifiedTime(
                jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 1000));

        ClassDataArchive rebuilt =
                ClassDataArchive.of("hello", jar.toString(), cache).orElseThrow();
        assertNotEquals(before.path(), rebuilt.path(), "JDK 17 refuses an archive of another jar of the same name");
        train(rebuilt);

        assertTrue(Files.isRegularFile(rebuilt.path()));
        assertFalse(Files.exists(before.path()), "the stale archive is removed");
    }

    @Test
    void aTrainingFileLeftAnHourAgoGoesAndOneBeingWrittenStays(@TempDir Path cache) throws IOException {
        Path name = ClassDataArchive.of("hello", jar.toString(), cache)
                .orElseThrow()
                .path();
        Path abandoned = Files.createFile(name.resolveSibling(name.getFileName() + ".killed.tmp"));
        Files.setLastModifiedTime(abandoned, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
        Path writing = Files.createFile(name.resolveSibling(name.getFileName() + ".running.tmp"));

        ClassDataArchive.of("hello", jar.toString(), cache).orElseThrow().jvmOptions();

        assertFalse(Files.exists(abandoned));
        assertTrue(Files.exists(writing), "another run may be writing it now");
    }

    @Test
    void aClassPathWithADirectoryGetsNone(@TempDir Path cache) {
        assertTrue(
                ClassDataArchive.of("hello", jar + java.io.File.pathSeparator + build, cache)
                        .isEmpty(),
                "JDK 17 archives no class from a directory");
    }

    private static ClassDataArchive train(ClassDataArchive archive) throws Exception {
        assertEquals(0, run(archive.jvmOptions(), jar.toString()));
        archive.keep();
        return archive;
    }

    private static int run(List<String> options, String classpath) throws Exception {
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(options);
        cmd.addAll(List.of("-cp", classpath, "Hello"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try (var in = p.getInputStream()) {
            out = new String(in.readAllBytes());
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(out.startsWith("hello"), out);
        assertFalse(out.contains("[warning]"), out);
        return p.exitValue();
    }
}
