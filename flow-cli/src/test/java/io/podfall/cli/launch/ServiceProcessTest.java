package io.podfall.cli.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceProcessTest {
    /** An app directory with no archive in it, wherever the test runs from. */
    private static final Path JAR = Path.of("no-such-app/target/quarkus-app/quarkus-run.jar");

    @Test
    void aServiceRunsOnTheSerialCollectorWithItsSettingsAsSystemProperties() {
        List<String> cmd = ServiceProcess.command(JAR, 8080, Map.of("podfall.topic", "t"), List.of("-Xmx1g"));

        assertTrue(cmd.contains("-XX:+UseSerialGC"));
        assertTrue(cmd.indexOf("-Xmx1g") > cmd.indexOf("-Xmx256m"), "the later -Xmx wins");
        assertTrue(cmd.contains("-Dquarkus.http.port=8080"));
        assertTrue(cmd.contains("-Dpodfall.topic=t"));
        assertEquals(
                List.of("-jar", "quarkus-run.jar"),
                cmd.subList(cmd.size() - 2, cmd.size()),
                "run in the app's directory, the class path as the archive's training run had it");
        assertFalse(cmd.stream().anyMatch(o -> o.startsWith("-XX:SharedArchiveFile")), "no archive was built");
    }

    @Test
    void theClassesComeFromTheAppsArchiveWhereTheBuildWroteOne(@TempDir Path app) throws IOException {
        Path jar = Files.createFile(app.resolve("quarkus-run.jar"));
        Files.createFile(app.resolve("app-cds.jsa"));

        List<String> cmd = ServiceProcess.command(jar, 8080, Map.of(), List.of());

        assertTrue(cmd.indexOf("-XX:SharedArchiveFile=app-cds.jsa") < cmd.indexOf("-jar"));
    }

    @Test
    void anotherCollectorReplacesTheSerialOne() {
        List<String> cmd = ServiceProcess.command(JAR, 8080, Map.of(), List.of("-XX:+UseG1GC"));

        assertFalse(cmd.contains("-XX:+UseSerialGC"), "the JVM refuses two collectors");
        assertTrue(cmd.contains("-XX:+UseG1GC"));
    }
}
