import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fails on a dead relative link or a missing anchor in the repository's Markdown files.
 *
 * <p>Run from anywhere in the checkout: {@code java scripts/CheckLinks.java} (Java 11+ runs a single-file source). It
 * checks every {@code *.md} file git knows (tracked, or new and not ignored): each inline link or image
 * ({@code [text](target)}), each reference definition ({@code [label]: target}) outside code. A link with a scheme
 * ({@code https:}, {@code mailto:}, ...) is skipped. A relative path must name a file or directory of the checkout;
 * an anchor ({@code #heading}, alone or after a Markdown file) must be the GitHub slug of one of that file's headings
 * (lowercase, spaces to '-', punctuation dropped but '-' and '_'; a repeated heading gets -1, -2, ...) or an HTML
 * {@code id}/{@code name} in it. An anchor on another kind of file must be a line anchor ({@code #L10},
 * {@code #L10-L20}). Exit 0 when every link resolves, 1 with the list of broken ones, 2 when the files cannot be listed.
 */
public final class CheckLinks {
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})");
    private static final Pattern ATX = Pattern.compile("^ {0,3}(#{1,6})(?:[ \\t]+(.*?))?(?:[ \\t]+#+)?[ \\t]*$");
    private static final Pattern SETEXT = Pattern.compile("^ {0,3}(=+|-+)[ \\t]*$");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    /** An inline link or image; the target may hold one level of balanced parentheses, or be in angle brackets. */
    private static final Pattern INLINE = Pattern.compile(
            "!?\\[((?:[^\\[\\]]|\\[[^\\[\\]]*\\])*)\\]\\(\\s*(<[^>]*>|(?:[^()\\s]|\\([^()\\s]*\\))*)"
                    + "(?:\\s+(?:\"[^\"]*\"|'[^']*'|\\([^)]*\\)))?\\s*\\)");
    private static final Pattern DEFINITION = Pattern.compile("^ {0,3}\\[([^\\]]+)\\]:\\s*(<[^>]*>|\\S+)");
    private static final Pattern HTML_ID = Pattern.compile("<[a-zA-Z][^>]*\\s(?:id|name)\\s*=\\s*[\"']([^\"']+)[\"']");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final Pattern LINE_ANCHOR = Pattern.compile("L\\d+(?:C\\d+)?(?:-L\\d+(?:C\\d+)?)?");

    private final Path root;
    private final Map<Path, Set<String>> anchors = new HashMap<>();

    private CheckLinks(Path root) {
        this.root = root;
    }

    /** A link as written: the file and line it is on, and its target. */
    record Link(Path file, int line, String target) {
    }

    public static void main(String[] args) throws Exception {
        Path root = gitRoot();
        List<Path> files = markdownFiles(root);
        CheckLinks check = new CheckLinks(root);
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path file : files) {
            for (Link link : links(root.resolve(file))) {
                links++;
                String problem = check.problem(link);
                if (problem != null) {
                    broken.add(root.relativize(link.file()) + ":" + link.line() + ": (" + link.target() + ") " + problem);
                }
            }
        }
        if (broken.isEmpty()) {
            System.out.println("CheckLinks: " + links + " links in " + files.size() + " Markdown files, every one resolves");
            return;
        }
        System.err.println("CheckLinks: " + broken.size() + " broken link" + (broken.size() == 1 ? "" : "s")
                + " (of " + links + " in " + files.size() + " Markdown files):");
        broken.forEach(b -> System.err.println("  " + b));
        System.exit(1);
    }

    private static Path gitRoot() throws IOException, InterruptedException {
        List<String> out = git(Path.of("."), "rev-parse", "--show-toplevel");
        if (out.size() != 1) {
            System.err.println("CheckLinks: not inside a git checkout");
            System.exit(2);
        }
        return Path.of(out.get(0)).toRealPath();
    }

    /** Every Markdown file git knows of: tracked, or new and not ignored; paths relative to the root. */
    private static List<Path> markdownFiles(Path root) throws IOException, InterruptedException {
        Set<String> names = new TreeSet<>(git(root, "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.md"));
        List<Path> files = new ArrayList<>();
        for (String name : names) {
            if (Files.isRegularFile(root.resolve(name))) { // a tracked file deleted in the work tree is no page
                files.add(Path.of(name));
            }
        }
        return files;
    }

    private static List<String> git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            System.err.println("CheckLinks: " + String.join(" ", command) + " failed");
            System.exit(2);
        }
        return out.lines().filter(l -> !l.isBlank()).toList();
    }

    /** The lines of a Markdown file outside fenced code blocks, with their numbers (1-based); null for a code line. */
    private static String[] prose(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String[] prose = new String[lines.size()];
        String fence = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher m = FENCE.matcher(line);
            if (fence == null && m.find()) {
                fence = m.group(1);
            } else if (fence != null && m.find() && m.group(1).charAt(0) == fence.charAt(0)
                    && m.group(1).length() >= fence.length() && line.trim().equals(m.group(1))) {
                fence = null;
            } else if (fence == null && !line.startsWith("    ") && !line.startsWith("\t")) {
                prose[i] = line;
            } else if (fence == null && (i == 0 || prose[i - 1] != null && !prose[i - 1].isBlank())) {
                prose[i] = line; // an indented continuation of a list item or paragraph, not a code block
            }
        }
        return prose;
    }

    /** A line with its code spans blanked out (same length, so nothing in them reads as a link). */
    private static String withoutCode(String line) {
        Matcher m = CODE_SPAN.matcher(line);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(" ".repeat(m.group().length())));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static List<Link> links(Path file) {
        String[] prose = prose(file);
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < prose.length; i++) {
            if (prose[i] == null) {
                continue;
            }
            String line = withoutCode(prose[i]);
            Matcher d = DEFINITION.matcher(line);
            if (d.find()) {
                links.add(new Link(file, i + 1, unbracket(d.group(2))));
                continue;
            }
            Matcher m = INLINE.matcher(line);
            while (m.find()) {
                links.add(new Link(file, i + 1, unbracket(m.group(2))));
            }
        }
        return links;
    }

    private static String unbracket(String target) {
        return target.startsWith("<") && target.endsWith(">") ? target.substring(1, target.length() - 1) : target;
    }

    /** What is wrong with a link, or null when it resolves. */
    private String problem(Link link) {
        String target = link.target();
        if (target.isEmpty()) {
            return "empty link";
        }
        if (SCHEME.matcher(target).find()) {
            return null; // http(s), mailto and the like: not checked here
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : decode(target.substring(hash + 1));
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        Path file;
        if (path.isEmpty()) {
            file = link.file();
        } else {
            String decoded = decode(path);
            file = (decoded.startsWith("/") ? root.resolve(decoded.substring(1)) : link.file().getParent().resolve(decoded))
                    .normalize();
            if (!file.startsWith(root)) {
                return "points outside the repository";
            }
            if (!Files.exists(file)) {
                return "no such file: " + root.relativize(file);
            }
        }
        if (anchor == null) {
            return null;
        }
        if (anchor.isEmpty()) {
            return path.isEmpty() ? "empty anchor" : null;
        }
        if (Files.isDirectory(file)) {
            return "anchor on a directory";
        }
        if (!file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".md")) {
            return LINE_ANCHOR.matcher(anchor).matches() ? null : "anchor on a file that is not Markdown (only #L10 or #L10-L20)";
        }
        Set<String> known = anchors.computeIfAbsent(file, CheckLinks::anchorsOf);
        if (known.contains(anchor)) {
            return null;
        }
        return "no heading #" + anchor + " in " + root.relativize(file) + nearest(anchor, known);
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }

    /** A hint: the known anchors that share the link's first word, if any. */
    private static String nearest(String anchor, Set<String> known) {
        String first = anchor.split("-", 2)[0];
        List<String> near = known.stream().filter(a -> a.startsWith(first)).limit(5).toList();
        return near.isEmpty() ? "" : " (did you mean " + String.join(", ", near.stream().map(a -> "#" + a).toList()) + "?)";
    }

    /** The anchors GitHub gives a Markdown file: its headings' slugs, numbered when repeated, and HTML ids. */
    private static Set<String> anchorsOf(Path file) {
        String[] prose = prose(file);
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < prose.length; i++) {
            if (prose[i] == null) {
                continue;
            }
            Matcher h = HTML_ID.matcher(prose[i]);
            while (h.find()) {
                anchors.add(h.group(1));
            }
            String heading = null;
            Matcher atx = ATX.matcher(prose[i]);
            if (atx.matches()) {
                heading = atx.group(2) == null ? "" : atx.group(2);
            } else if (i + 1 < prose.length && prose[i + 1] != null && SETEXT.matcher(prose[i + 1]).matches()
                    && !prose[i].isBlank()
                    && (i == 0 || prose[i - 1] == null || prose[i - 1].isBlank() || ATX.matcher(prose[i - 1]).matches())
                    && !prose[i].trim().matches("([-*+>|]|\\d+[.)])(\\s.*)?")) {
                heading = prose[i].trim(); // a setext heading: text, then a line of = or -
            }
            if (heading == null) {
                continue;
            }
            String slug = slug(heading);
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }

    /** GitHub's slug of a heading: its text as rendered, lowercased, punctuation but '-' and '_' dropped, spaces to '-'. */
    static String slug(String heading) {
        String text = heading
                .replaceAll("!?\\[((?:[^\\[\\]]|\\[[^\\[\\]]*\\])*)\\]\\([^)]*\\)", "$1") // a link: its text
                .replaceAll("<[^>]+>", "")                                                  // HTML tags
                .replace("`", "")
                .replaceAll("(\\*{1,3})(\\S(?:.*?\\S)?)\\1", "$2")                           // emphasis
                .replaceAll("(?<![\\p{L}\\p{N}])(_{1,3})(\\S(?:.*?\\S)?)\\1(?![\\p{L}\\p{N}])", "$2");
        StringBuilder slug = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        });
        return slug.toString();
    }
}
