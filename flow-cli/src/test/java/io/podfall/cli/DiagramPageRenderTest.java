package io.podfall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.podfall.cli.analysis.Cascade;
import io.podfall.cli.analysis.PodLog;
import io.podfall.cli.log.EventFile;
import io.podfall.model.event.Event;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page of {@code podfall diagram --html} in a real browser: Debian's headless Chromium loads it from a file with
 * every host name unresolvable (so the page can only work offline, as it claims), and the DOM it dumps once the page
 * has settled holds the SVG Mermaid drew. The page, the DOM and a screenshot are kept in {@code target/} as the test's
 * artefacts. Skipped only where Chromium is not installed.
 */
class DiagramPageRenderTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path ARTEFACTS = Path.of("target");
    private static final Pattern MESSAGE = Pattern.compile("<text\\b[^>]*\\bclass=\"messageText\"[^>]*>([^<]*)</text>");
    private static final Pattern NOTE =
            Pattern.compile("<text\\b[^>]*\\bclass=\"noteText\"[^>]*>(?:<tspan[^>]*>)?([^<]*)<");

    @TempDir
    Path dir;

    @Test
    void thePageRendersOneMessageAnEventOfTheFlowWithoutTheNetwork() throws Exception {
        PodLog web = new PodLog("web-1").created(0).deleted(1_000, 2, 0, true);
        List<Event> log = new ArrayList<>(web.events);
        log.addAll(new PodLog("other").created(0).deleted(1_500, 5, 100, false).events);
        Drawn drawn = draw("", log, "--pod", "default/web-1");

        assertTrue(
                drawn.body().contains("aria-roledescription=\"sequence\""),
                "Mermaid drew a sequence diagram (see target/diagram-dom.html)");
        List<String> messages = matches(MESSAGE, drawn.svg());
        List<Event> flow =
                log.stream().filter(e -> e.correlationId().equals("del-web-1")).toList();
        assertEquals(19, flow.size());
        assertEquals(flow.size(), messages.size(), "one message an event: " + messages);
        assertEquals(labels(Files.readString(drawn.page())), messages, "each event's label, in log order");
        byte[] png = Files.readAllBytes(drawn.screenshot());
        assertTrue(png.length > 10_000, "a screenshot of the diagram, not an empty page");
        assertEquals("\u0089PNG", new String(png, 0, 4, StandardCharsets.ISO_8859_1));
    }

    /** A cascade's page: every event still one message, and one note over each block of an object's steps. */
    @Test
    void aCascadesPageRendersItsBlocksOfObjectsWithANoteEach() throws Exception {
        Cascade cascade = new Cascade();
        Drawn drawn = draw("cascade-", cascade.events, "--deployment", "default/web");
        assertEquals(cascade.events.size(), matches(MESSAGE, drawn.svg()).size(), "one message an event");
        assertEquals(
                List.of(
                        Cascade.DEPLOYMENT,
                        Cascade.REPLICA_SET,
                        cascade.first.subject,
                        cascade.second.subject,
                        Cascade.REPLICA_SET + " (continued)",
                        Cascade.DEPLOYMENT + " (continued)"),
                matches(NOTE, drawn.svg()));
        assertTrue(Files.size(drawn.screenshot()) > 10_000, "a screenshot of the diagram, not an empty page");
    }

    /** A page podfall diagram wrote, and what Chromium drew of it: the DOM's body before the scripts. */
    private record Drawn(Path page, Path screenshot, String body) {
        /** The SVG: the renderer inlined in the page's scripts mentions the same classes, so only the body counts. */
        String svg() {
            return body.substring(body.indexOf("<svg"));
        }
    }

    /**
     * Writes {@code log} to a file, runs {@code podfall diagram --html} over it with the flow {@code choice}, and draws
     * the page; its artefacts are {@code target/diagram-<prefix>page.html}, {@code -dom.html}, {@code -screenshot.png}.
     */
    private Drawn draw(String prefix, List<Event> log, String... choice) throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(CHROMIUM), CHROMIUM + " is not installed (Debian package chromium)");
        Path file = dir.resolve(prefix + "log.jsonl");
        try (Writer w = Files.newBufferedWriter(file)) {
            EventFile.write(w, log);
        }
        Path page = ARTEFACTS.resolve("diagram-" + prefix + "page.html").toAbsolutePath();
        Path screenshot =
                ARTEFACTS.resolve("diagram-" + prefix + "screenshot.png").toAbsolutePath();
        Files.deleteIfExists(screenshot);
        Files.createDirectories(ARTEFACTS);
        List<String> args = new ArrayList<>(List.of("diagram", "--file", file.toString(), "--html", page.toString()));
        args.addAll(List.of(choice));
        assertEquals(0, Podfall.commandLine().execute(args.toArray(String[]::new)));
        String dom = render(page, screenshot);
        Files.writeString(ARTEFACTS.resolve("diagram-" + prefix + "dom.html"), dom);
        return new Drawn(page, screenshot, dom.substring(0, dom.indexOf("<script")));
    }

    private static List<String> matches(Pattern p, String svg) {
        List<String> found = new ArrayList<>();
        Matcher m = p.matcher(svg);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /** The page as Chromium draws it: its DOM after 5 s of virtual time; the screenshot to {@code screenshot}. */
    private String render(Path page, Path screenshot) throws IOException, InterruptedException {
        Path log = ARTEFACTS.resolve("diagram-chromium.log");
        Path dom = dir.resolve("dom.html");
        Process chromium = new ProcessBuilder(
                        CHROMIUM.toString(),
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--user-data-dir=" + dir.resolve("profile"),
                        "--host-resolver-rules=MAP * ~NOTFOUND",
                        "--virtual-time-budget=5000",
                        "--window-size=1600,1400",
                        "--screenshot=" + screenshot,
                        "--dump-dom",
                        page.toUri().toString())
                .redirectOutput(dom.toFile())
                .redirectError(log.toFile())
                .start();
        if (!chromium.waitFor(60, TimeUnit.SECONDS)) {
            chromium.descendants().forEach(ProcessHandle::destroyForcibly);
            chromium.destroyForcibly();
            fail("chromium did not finish within 60 s; see " + log);
        }
        assertEquals(0, chromium.exitValue(), "chromium failed; see " + log);
        return Files.readString(dom);
    }

    /** The arrows' labels in the page's Mermaid source, as the SVG shows them. */
    private static List<String> labels(String html) {
        String source = html.substring(html.indexOf("<pre class=\"mermaid\">"), html.indexOf("</pre>"));
        return Arrays.stream(source.split("\n"))
                .filter(l -> l.contains("&gt;&gt;"))
                .map(l -> l.substring(l.indexOf(": ") + 2))
                .toList();
    }
}
