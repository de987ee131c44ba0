import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

/**
 * The release profile's last step (mvn -P release verify), run once per published module as a
 * single-file program: fails, listing every problem, unless the module's jar, -sources.jar and
 * -javadoc.jar exist, the jar's manifest names its module, and the POM carries what Maven Central
 * requires (url, description, licence, developer, scm). Arguments are key=value pairs; Maven
 * leaves an unset ${...} expression as it is, which counts as missing.
 */
public final class ReleaseCheck {
  private static final Pattern MODULE_NAME =
      Pattern.compile("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*");

  public static void main(String[] args) throws IOException {
    Map<String, String> in = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("not key=value: " + arg);
      }
      in.put(arg.substring(0, eq), arg.substring(eq + 1).strip());
    }
    List<String> problems = new ArrayList<>();
    for (String key : List.of("url", "description", "license", "licenseUrl", "developer",
        "scmConnection", "scmUrl")) {
      if (!isSet(in.get(key))) {
        problems.add("the POM has no " + key);
      }
    }
    requirePrefix(in, "url", "https://", problems);
    requirePrefix(in, "scmUrl", "https://", problems);
    requirePrefix(in, "scmConnection", "scm:", problems);

    String jarName = in.getOrDefault("jar", "");
    Path jar = Path.of(jarName);
    String base = jarName.endsWith(".jar") ? jarName.substring(0, jarName.length() - 4) : jarName;
    Path sources = Path.of(base + "-sources.jar");
    Path javadoc = Path.of(base + "-javadoc.jar");
    for (Path file : List.of(jar, sources, javadoc)) {
      if (!Files.isRegularFile(file)) {
        problems.add(file + " is missing");
      }
    }
    String module = in.getOrDefault("module", "");
    if (!MODULE_NAME.matcher(module).matches()) {
      problems.add("automatic.module.name '" + module + "' is not a module name");
    } else if (Files.isRegularFile(jar)) {
      try (JarFile file = new JarFile(jar.toFile())) {
        String named = file.getManifest() == null ? null
            : file.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
        if (!module.equals(named)) {
          problems.add(jar + ": Automatic-Module-Name is " + named + ", expected " + module);
        }
      }
    }
    if (Files.isRegularFile(sources)) {
      try (JarFile file = new JarFile(sources.toFile())) {
        if (file.stream().noneMatch(e -> e.getName().endsWith(".java"))) {
          problems.add(sources + " holds no .java file");
        }
      }
    }
    if (Files.isRegularFile(javadoc)) {
      try (JarFile file = new JarFile(javadoc.toFile())) {
        if (file.getEntry("index.html") == null) {
          problems.add(javadoc + " has no index.html");
        }
      }
    }

    String artifact = in.getOrDefault("artifact", "?");
    if (!problems.isEmpty()) {
      System.err.println(artifact + " is not releasable:");
      problems.forEach(p -> System.err.println("  - " + p));
      System.exit(1);
    }
    System.out.println(artifact + ": jar, sources, javadoc, Automatic-Module-Name " + module
        + " and the POM metadata Maven Central requires are present");
  }

  private static boolean isSet(String value) {
    return value != null && !value.isEmpty() && !value.contains("${");
  }

  private static void requirePrefix(
      Map<String, String> in, String key, String prefix, List<String> problems) {
    String value = in.get(key);
    if (isSet(value) && !value.startsWith(prefix)) {
      problems.add("the POM's " + key + " '" + value + "' does not start with " + prefix);
    }
  }
}
