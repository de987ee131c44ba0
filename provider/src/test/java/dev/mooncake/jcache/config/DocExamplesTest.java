package dev.mooncake.jcache.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mooncake.jcache.config.ConfigTestSupport.RecordingWarnings;
import dev.mooncake.jcache.config.MooncakeConfig.Backend;
import dev.mooncake.jcache.config.MooncakeConfig.Mode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The documentation's examples parse, cleanly, to what they claim; so the docs cannot rot. */
class DocExamplesTest {
  private static final Path EXAMPLES = ProjectFiles.find("docs/examples");
  private static final Path GUIDE = ProjectFiles.find("docs/configuration.md");
  private static final Pattern JSON_BLOCK = Pattern.compile("```json\\n(.*?)```", Pattern.DOTALL);

  private final RecordingWarnings warnings = new RecordingWarnings();

  private MooncakeConfig example(String name) {
    URI uri = EXAMPLES.resolve(name).toUri();
    MooncakeConfig config = ConfigLoader.load(uri, null, warnings.warnings());
    assertTrue(warnings.messages.isEmpty(), () -> name + ": " + warnings.messages);
    return config;
  }

  @Test
  void inProcess() {
    MooncakeConfig config = example("in-process.json");

    assertEquals(Backend.IN_PROCESS, config.backend());
    assertEquals(512L << 20, config.globalSegmentSize());
    assertEquals(List.of("users", "pages"), List.copyOf(config.caches().keySet()));
    assertEquals(List.of("com.example.model.**"), config.deserializationAllowList());
  }

  @Test
  void mooncakeEmbeddedOverTcp() {
    MooncakeConfig config = example("mooncake-embedded-tcp.json");

    assertEquals(Backend.MOONCAKE, config.backend());
    assertEquals(Mode.EMBEDDED, config.mode());
    assertEquals("P2PHANDSHAKE", config.metadataServer());
    assertEquals("127.0.0.1:50051", config.masterServerAddress());
    assertEquals("127.0.0.1", config.localHostname());
    assertEquals("tcp", config.protocol());
  }

  @Test
  void mooncakeStandaloneStore() {
    MooncakeConfig config = example("mooncake-standalone-store.json");

    assertEquals(Backend.MOONCAKE, config.backend());
    assertEquals(Mode.STANDALONE_STORE, config.mode());
    assertEquals(0, config.globalSegmentSize());
  }

  @Test
  void mooncakeRdma() {
    MooncakeConfig config = example("mooncake-rdma.json");

    assertEquals(Backend.MOONCAKE, config.backend());
    assertEquals("rdma", config.protocol());
    assertEquals("mlx5_0", config.deviceName());
    assertEquals(2, config.replica().replicaNum());
    assertEquals("v2", config.nativeSettings().abi(), "a pin needs the layout named");
  }

  @Test
  void everyExampleFileIsShownInTheGuide() throws IOException {
    String guide = normalize(Files.readString(GUIDE));
    List<Path> files;
    try (Stream<Path> list = Files.list(EXAMPLES)) {
      files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }

    assertEquals(4, files.size(), files::toString);
    for (Path file : files) {
      assertTrue(
          guide.contains(normalize(Files.readString(file))),
          () -> file + " differs from its copy in the guide");
    }
  }

  @Test
  void everyJsonBlockOfTheGuideIsAValidConfig() throws IOException {
    Matcher blocks = JSON_BLOCK.matcher(Files.readString(GUIDE));
    int count = 0;
    while (blocks.find()) {
      count++;
      ConfigLoader.parse(blocks.group(1), "configuration.md block " + count, warnings.warnings());
    }

    assertTrue(count >= 5, "found " + count + " JSON blocks");
    assertTrue(warnings.messages.isEmpty(), warnings.messages::toString);
  }

  /** The pages split off the guide show configs too; theirs must parse as the guide's do. */
  @Test
  void everyJsonBlockOfTheGuidesCompanionPagesIsAValidConfig() throws IOException {
    for (String page : List.of("docs/production.md", "docs/native-log.md")) {
      Matcher blocks = JSON_BLOCK.matcher(Files.readString(ProjectFiles.find(page)));
      int count = 0;
      while (blocks.find()) {
        count++;
        ConfigLoader.parse(blocks.group(1), page + " block " + count, warnings.warnings());
      }
      assertTrue(count >= 1, page + ": no JSON block");
    }
    assertTrue(warnings.messages.isEmpty(), warnings.messages::toString);
  }

  @Test
  void everyKeyIsDocumented() throws IOException {
    String guide = Files.readString(GUIDE);
    List<String> keys = new ArrayList<>();
    collectKeys(
        new ObjectMapper().readTree(ConfigTestSupport.json(ConfigTestSupport.ALL_KEYS)), keys);

    for (String key : keys) {
      assertTrue(guide.contains(key), () -> "key '" + key + "' is not in docs/configuration.md");
    }
  }

  private static void collectKeys(JsonNode node, List<String> keys) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        if (!field.getKey().equals("c")) { // the cache's name, not a key
          keys.add(field.getKey());
        }
        collectKeys(field.getValue(), keys);
      }
    } else if (node.isArray()) {
      node.forEach(element -> collectKeys(element, keys));
    }
  }

  private static String normalize(String text) {
    return text.replaceAll("\\s+", " ").strip();
  }
}
