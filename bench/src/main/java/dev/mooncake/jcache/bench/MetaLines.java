package dev.mooncake.jcache.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The "- Command: … / - Date: … / - Level: …" lines at the head of a generated block. One piece:
 * its meta lines as it wrote them. Several: a line naming every piece, then each meta line once
 * when every piece says the same and per piece ("1) …; 2) …") when they differ, so each piece's
 * command, date, time taken, load average and versions stay readable. Then, when the stored
 * combinations do not cover the level's whole plan, how many do and which are missing.
 */
final class MetaLines {
  // written once for all pieces, by the "Pieces" line and per-piece lists
  private static final String LOAD = "; load average at the end ";

  private MetaLines() {}

  static void append(StringBuilder md, Results results) {
    List<Piece> pieces = results.pieces;
    if (pieces.size() == 1) {
      pieces.get(0).meta().forEach((k, v) -> line(md, k, v));
    } else {
      List<String> each = new ArrayList<>();
      for (Piece p : pieces) {
        long figures =
            results.records.stream().filter(r -> Objects.equals(r.piece(), p.id())).count();
        each.add(p.id() + ") " + p.summary() + ", " + figures + " figures");
      }
      line(
          md,
          "Pieces",
          pieces.size()
              + " runs of one level, merged (each figure is from the last piece that measured its"
              + " combination): "
              + String.join("; ", each));
      Set<String> keys = new LinkedHashSet<>();
      pieces.forEach(p -> keys.addAll(p.meta().keySet()));
      for (String key : keys) {
        line(md, key, across(pieces, key));
      }
    }
    String coverage = Coverage.line(results);
    if (coverage != null) {
      line(md, "Coverage", coverage);
    }
  }

  /** One meta line over all pieces: the common value, or each piece's. */
  private static String across(List<Piece> pieces, String key) {
    List<String> values = new ArrayList<>();
    List<String> loads = new ArrayList<>();
    for (Piece p : pieces) {
      String v = p.meta().get(key);
      if (v == null) {
        values.add(null);
        continue;
      }
      if (key.equals("Level")) {
        v = v.replaceFirst("; segments matching .*", ""); // each piece's filter is in its command
      } else if (key.equals("Machine") && v.contains(LOAD)) {
        loads.add(p.id() + ") " + v.substring(v.indexOf(LOAD) + LOAD.length()));
        v = v.substring(0, v.indexOf(LOAD));
      }
      values.add(v);
    }
    String loadText = loads.isEmpty() ? "" : LOAD + String.join("; ", loads);
    if (!values.contains(null) && new LinkedHashSet<>(values).size() == 1) {
      return values.get(0) + loadText;
    }
    List<String> each = new ArrayList<>();
    for (int i = 0; i < pieces.size(); i++) {
      if (values.get(i) != null) {
        each.add(pieces.get(i).id() + ") " + values.get(i));
      }
    }
    return String.join("; ", each) + loadText;
  }

  private static void line(StringBuilder md, String key, String value) {
    md.append("- ").append(key).append(": ").append(value).append('\n');
  }
}
