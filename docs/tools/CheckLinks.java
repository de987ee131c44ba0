import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks every relative link and {@code #anchor} in README.md, docs/*.md and bench/results/*.md:
 * the file must exist and, for a Markdown target, the anchor must be one of its headings as GitHub
 * names them (lower case, punctuation dropped, spaces as hyphens, "-1", "-2" for repeats). Run by
 * the docs module's {@code verify} ({@code java docs/tools/CheckLinks.java <repository root>}), so
 * a page split or a renamed heading cannot leave a dead link behind.
 */
public final class CheckLinks {
  private static final Pattern INLINE = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern REFERENCE = Pattern.compile("(?m)^\\[[^\\]]+\\]:\\s*(\\S+)");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*)$");
  private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");

  public static void main(String[] args) throws IOException {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    pages.addAll(markdownIn(root.resolve("docs")));
    pages.addAll(markdownIn(root.resolve("bench/results")));
    Map<Path, Set<String>> anchors = new HashMap<>();
    List<String> broken = new ArrayList<>();
    for (Path page : pages) {
      String text = withoutCode(Files.readString(page));
      List<String> targets = new ArrayList<>();
      for (Pattern p : List.of(INLINE, REFERENCE)) {
        Matcher m = p.matcher(text);
        while (m.find()) {
          targets.add(m.group(1));
        }
      }
      for (String target : targets) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          continue; // https:, mailto: …
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? "" : target.substring(hash + 1);
        Path dest = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(dest)) {
          broken.add(root.relativize(page) + ": no file " + target);
        } else if (!fragment.isEmpty()
            && dest.toString().endsWith(".md")
            && !anchors.computeIfAbsent(dest, CheckLinks::anchorsOf).contains(fragment)) {
          broken.add(root.relativize(page) + ": no heading for " + target);
        }
      }
    }
    broken.forEach(System.err::println);
    System.out.println(pages.size() + " pages checked, " + broken.size() + " broken links");
    if (!broken.isEmpty()) {
      System.exit(1);
    }
  }

  private static List<Path> markdownIn(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(dir)) {
      return list.filter(p -> p.toString().endsWith(".md")).sorted().toList();
    }
  }

  /** The text outside fenced blocks, with code spans blanked: links there are not links. */
  private static String withoutCode(String text) {
    StringBuilder out = new StringBuilder();
    boolean fenced = false;
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("```")) {
        fenced = !fenced;
      } else if (!fenced) {
        out.append(CODE_SPAN.matcher(line).replaceAll("")).append('\n');
      }
    }
    return out.toString();
  }

  private static Set<String> anchorsOf(Path page) {
    Set<String> out = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean fenced = false;
    try {
      for (String line : Files.readAllLines(page)) {
        if (line.startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        Matcher m = HEADING.matcher(line);
        if (!fenced && m.matches()) {
          String slug =
              m.group(2).strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
                  .replace(' ', '-');
          int n = seen.merge(slug, 1, Integer::sum) - 1;
          out.add(n == 0 ? slug : slug + "-" + n);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(page + ": " + e.getMessage(), e);
    }
    return out;
  }
}
