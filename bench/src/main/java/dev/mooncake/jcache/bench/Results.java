package dev.mooncake.jcache.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The results of one part's last run, kept as JSON next to the report (docs/perf-data/), so the
 * report can be rendered again from both parts without measuring.
 */
public final class Results {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public Map<String, String> meta = new LinkedHashMap<>();
  public List<Record> records = new ArrayList<>();

  public static Results load(Path file) throws IOException {
    if (!Files.exists(file)) {
      return null;
    }
    return JSON.readValue(file.toFile(), Results.class);
  }

  public void save(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    JSON.writeValue(file.toFile(), this);
  }
}
