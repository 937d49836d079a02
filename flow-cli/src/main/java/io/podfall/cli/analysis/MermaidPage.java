package io.podfall.cli.analysis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * A self-contained HTML page that renders a Mermaid diagram: the renderer (the {@code mermaid} npm package's
 * {@code dist/mermaid.min.js}, from its WebJar on the class path) is inlined, so the page needs no network.
 */
public final class MermaidPage {
    private static final String WEBJAR = "META-INF/resources/webjars/mermaid/";
    private static final String POM = "META-INF/maven/org.webjars.npm/mermaid/pom.properties";

    private MermaidPage() {}

    public static String html(String title, String mermaid) {
        String version = mermaidVersion();
        String script = resource(WEBJAR + version + "/dist/mermaid.min.js")
                // the bundle is inlined in a <script> element, which would end at the first "</script"
                .replace("</script", "<\\/script");
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escape(title)
                + "</title>\n<style>body{font-family:sans-serif;margin:2em}</style>\n</head>\n<body>\n<h1>"
                + escape(title) + "</h1>\n<pre class=\"mermaid\">\n" + escape(mermaid) + "</pre>\n"
                + "<!-- mermaid " + version + " (npm), inlined: this page fetches nothing -->\n<script>\n" + script
                + "\n</script>\n<script>mermaid.initialize({startOnLoad: true, securityLevel: 'strict'});</script>\n"
                + "</body>\n</html>\n";
    }

    static String mermaidVersion() {
        Properties p = new Properties();
        try (InputStream in = stream(POM)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version");
    }

    private static String resource(String name) {
        try (InputStream in = stream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static InputStream stream(String name) {
        InputStream in = MermaidPage.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            throw new IllegalStateException("the Mermaid renderer is not on the class path (" + name + ")");
        }
        return in;
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
