package dev.mooncake.jcache.bench;

import com.fasterxml.jackson.annotation.JsonInclude;
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
 * A part's stored results, kept as JSON under bench/results/perf-data/, so the report can be
 * rendered again from all parts without measuring: the part, its level ({@link Timing}), the runs
 * that made them ({@link Piece}s: one for a whole run, several when a run was assembled from
 * filtered ones, see {@link Merge}) and the records, each naming its piece.
 *
 * <p>Files written before pieces have only {@code meta} (their one run's lines) and records: {@link
 * #load} reads them as one piece with the timing their meta lines state.
 */
public final class Results {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public String part;
  public Timing timing;
  public List<Piece> pieces = new ArrayList<>();

  /** Only in files written before pieces: that run's meta lines (now in its {@link Piece}). */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public Map<String, String> meta = new LinkedHashMap<>();

  public List<Record> records = new ArrayList<>();

  /** One run's results: one piece, every record in it. */
  static Results ofRun(Plan plan, Map<String, String> meta, List<Record> records) {
    Results r = new Results();
    r.part = plan.part();
    r.timing = Timing.of(plan);
    r.pieces.add(new Piece(1, meta));
    for (Record record : records) {
      r.records.add(record.withPiece(1));
    }
    return r;
  }

  /** The results stored in this file (null when there is none), older files as one piece. */
  public static Results load(Path file) throws IOException {
    if (!Files.exists(file)) {
      return null;
    }
    Results r = JSON.readValue(file.toFile(), Results.class);
    if (r.part == null) {
      r.part = file.getFileName().toString().replaceFirst("\\.json$", "");
    }
    if (r.pieces.isEmpty()) {
      r.pieces.add(new Piece(1, r.meta));
      r.records.replaceAll(record -> record.piece() == null ? record.withPiece(1) : record);
      if (r.timing == null) {
        r.timing = Timing.parse(r.meta);
      }
    }
    r.meta = new LinkedHashMap<>();
    return r;
  }

  public void save(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    JSON.writeValue(file.toFile(), this);
  }

  /** The level's name ("full"), or "?" when an old file's meta lines did not state it. */
  String level() {
    return timing == null ? "?" : timing.level();
  }
}
