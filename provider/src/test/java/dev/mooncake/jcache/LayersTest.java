package dev.mooncake.jcache;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The provider's layers, enforced: each layer imports only the layers it names (all below it in
 * {@link #LAYERS}), every main class is in a layer, and no two packages import each other. The
 * layer table of docs/architecture.md must be {@link #table()}, so the picture and the rule cannot
 * drift apart. A new package fails here until it is given a layer.
 */
class LayersTest {
  static final String BASE = "dev.mooncake.jcache";
  static final String ROOT = "(root)";

  /**
   * One layer: its packages ({@code x} the package, {@code x..} with its sub-packages, {@code
   * (root)} the JCache facade's own package) and the layers it may use.
   */
  record Layer(String name, List<String> packages, List<String> uses) {
    String[] identifiers() {
      return packages.stream()
          .map(p -> p.equals(ROOT) ? BASE : BASE + "." + p)
          .toArray(String[]::new);
    }

    boolean holds(String packageName) {
      for (String id : identifiers()) {
        boolean tree = id.endsWith("..");
        String p = tree ? id.substring(0, id.length() - 2) : id;
        if (packageName.equals(p) || (tree && packageName.startsWith(p + "."))) {
          return true;
        }
      }
      return false;
    }
  }

  private static Layer layer(String name, String packages, String uses) {
    return new Layer(name, words(packages), words(uses));
  }

  private static List<String> words(String s) {
    return s.isBlank() ? List.of() : List.of(s.trim().split("\\s+"));
  }

  /** Top to bottom: a layer uses only layers listed after it. */
  static final List<Layer> LAYERS =
      List.of(
          layer(
              "doctor",
              "internal.doctor",
              "spi connection store backend lock config time nativebridge"),
          layer("spi", "spi", "api config"),
          layer(
              "api",
              ROOT + " internal.operation",
              "async connection jcache remote entry expiry lock lane codec backend config time"),
          layer("connection", "internal.connection", "store backend lock config time"),
          layer("remote", "internal.event.remote.. internal.near", "backend time"),
          layer(
              "jcache",
              "internal.event internal.integration internal.management internal.processor",
              "calls time"),
          layer("entry", "internal.entry", "expiry lock lane codec backend integrity time"),
          layer("expiry", "internal.expiry", "time"),
          layer("lock", "internal.lock..", "backend calls integrity time"),
          layer("async", "internal.async", "calls time"),
          layer("lane", "internal.lane", "config calls time"),
          layer("codec", "internal.codec", ""),
          layer(
              "store",
              "internal.backend.inprocess.. internal.backend.mooncake..",
              "backend calls config time nativebridge"),
          layer("backend", "internal.backend", "time"),
          layer("calls", "internal.calls", "time"),
          layer("integrity", "internal.integrity", ""),
          layer("config", "config.. internal.config..", ""),
          layer("time", "internal.time", ""),
          // the JNI module (native/), a jar of its own: here only as a target
          layer("nativebridge", "nativebridge..", ""));

  private static final Layer CONFIG =
      LAYERS.stream().filter(l -> l.name().equals("config")).findFirst().orElseThrow();

  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() throws URISyntaxException {
    // the provider's own classes (target/classes), not the tests nor the native module's jar
    Path main =
        Path.of(MooncakeCache.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    classes = new ClassFileImporter().importPath(main);
    assertTrue(classes.size() > 100, "imported " + classes.size() + " classes from " + main);
  }

  static LayeredArchitecture rule() {
    LayeredArchitecture rule =
        layeredArchitecture()
            .consideringOnlyDependenciesInAnyPackage(BASE + "..")
            .ensureAllClassesAreContainedInArchitecture();
    for (Layer l : LAYERS) {
      rule =
          l.name().equals("nativebridge")
              ? rule.optionalLayer(l.name()).definedBy(l.identifiers())
              : rule.layer(l.name()).definedBy(l.identifiers());
    }
    for (Layer l : LAYERS) {
      rule =
          l.uses().isEmpty()
              ? rule.whereLayer(l.name()).mayNotAccessAnyLayer()
              : rule.whereLayer(l.name()).mayOnlyAccessLayers(l.uses().toArray(String[]::new));
    }
    return rule;
  }

  @Test
  void eachLayerImportsOnlyTheLayersItNames() {
    rule().check(classes);
  }

  @Test
  void noTwoPackagesImportEachOther() {
    slices().assignedFrom(PACKAGES).should().beFreeOfCycles().check(classes);
  }

  private static final Layer FACADE =
      LAYERS.stream().filter(l -> l.name().equals("api")).findFirst().orElseThrow();

  /**
   * One slice per package, but the {@code config} layer is one: {@code ConfigLoader}, the API's
   * entry, runs the readers of {@code config.parse} / {@code config.source}, which read into the
   * model beside it (architecture.md, "Inside config"). So is the {@code api} layer: {@code
   * operation} holds the bodies of the facade's operations, and implements the API's own types
   * ({@code ZeroCopyCache}, the writer's {@code CacheEntry}) that the root package publishes.
   */
  private static final SliceAssignment PACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
          String p = c.getPackageName();
          if (!p.equals(BASE) && !p.startsWith(BASE + ".")) {
            return SliceIdentifier.ignore();
          }
          if (CONFIG.holds(p)) {
            return SliceIdentifier.of("the config layer");
          }
          return SliceIdentifier.of(FACADE.holds(p) ? "the facade (root and operation)" : p);
        }

        @Override
        public String getDescription() {
          return "packages of " + BASE + " (the config layer as one)";
        }
      };

  @Test
  void layersAreListedTopToBottom() {
    List<String> names = LAYERS.stream().map(Layer::name).toList();
    for (int i = 0; i < LAYERS.size(); i++) {
      for (String used : LAYERS.get(i).uses()) {
        assertTrue(
            names.indexOf(used) > i,
            LAYERS.get(i).name() + " uses " + used + ", which is not below it");
      }
    }
  }

  @Test
  void architectureMdShowsTheseLayers() throws IOException {
    Path page = Path.of(System.getProperty("basedir", ".")).resolve("../docs/architecture.md");
    String text = Files.readString(page);
    assertEquals(table(), tableIn(text), "docs/architecture.md's layer table (paste this one)");
  }

  /** The layer table as architecture.md shows it. */
  static String table() {
    StringBuilder t = new StringBuilder(HEADER);
    for (Layer l : LAYERS) {
      t.append("| `")
          .append(l.name())
          .append("` | ")
          .append(code(l.packages()))
          .append(" | ")
          .append(l.uses().isEmpty() ? "nothing of the provider" : code(l.uses()))
          .append(" |\n");
    }
    return t.toString();
  }

  private static final String HEADER = "| layer | packages | may use |\n|---|---|---|\n";

  private static String code(List<String> words) {
    List<String> quoted = new ArrayList<>();
    for (String w : words) {
      quoted.add("`" + w + "`");
    }
    return String.join(" ", quoted);
  }

  private static final Pattern TABLE =
      Pattern.compile(Pattern.quote(HEADER) + "(\\|[^\\n]*\\|\\n)*", Pattern.MULTILINE);

  private static String tableIn(String page) {
    Matcher m = TABLE.matcher(page);
    List<String> found = new ArrayList<>();
    while (m.find()) {
      found.add(m.group());
    }
    assertEquals(1, found.size(), "layer tables in docs/architecture.md");
    return found.iterator().next();
  }
}
