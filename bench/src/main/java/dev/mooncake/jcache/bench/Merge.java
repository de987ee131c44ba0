package dev.mooncake.jcache.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * How a run's results join a part's stored ones. A whole run (no {@code --only}, {@code --peers} or
 * {@code --values}) replaces them. A filtered run is a piece: its records replace the stored
 * records of the same combinations ({@link Record#combination()}), every other stored record stays,
 * and the piece is listed next to the earlier ones, so a run too long for one sitting can be
 * assembled from pieces. Only pieces of one level merge: a piece of another level than the stored
 * results is refused, or with {@code --replace} replaces them.
 */
final class Merge {
  private Merge() {}

  /**
   * Refuses, before anything is measured, a piece that could not be stored: a filtered run of
   * another level than the stored results, without {@code --replace}.
   *
   * @throws IllegalArgumentException naming both levels
   */
  static void check(Results stored, Timing piece, boolean filtered, boolean replace) {
    if (!filtered || replace || stored == null || piece.equals(stored.timing)) {
      return;
    }
    throw new IllegalArgumentException(
        "this run is a piece (--only, --peers or --values) of level "
            + piece.describe()
            + ", but the stored "
            + stored.part
            + " results are of level "
            + (stored.timing == null
                ? "? (an older file whose meta lines do not state its timing)"
                : stored.timing.describe())
            + ": pieces of different levels do not merge. Run the same level, run the whole"
            + " level without filters, or pass --replace to start the stored results anew with"
            + " this piece");
  }

  /** The results to store after this run ({@link Results#ofRun}: one piece). */
  static Results merge(Results stored, Results run, boolean filtered, boolean replace) {
    check(stored, run.timing, filtered, replace);
    if (!filtered || replace || stored == null) {
      return run;
    }
    Results merged = new Results();
    merged.part = run.part;
    merged.timing = run.timing;
    int id = stored.pieces.stream().mapToInt(Piece::id).max().orElse(0) + 1;
    Set<String> measured = new HashSet<>();
    for (Record r : run.records) {
      measured.add(r.combination());
    }
    for (Record r : stored.records) {
      if (!measured.contains(r.combination())) {
        merged.records.add(r);
      }
    }
    for (Record r : run.records) {
      merged.records.add(r.withPiece(id));
    }
    merged.pieces.addAll(stored.pieces);
    merged.pieces.add(run.pieces.get(0).withId(id));
    return renumbered(merged);
  }

  /**
   * Drops pieces no record comes from any more (all of theirs measured again later) and numbers the
   * rest 1, 2, … in the order they ran.
   */
  private static Results renumbered(Results results) {
    Set<Integer> used = new TreeSet<>();
    results.records.forEach(r -> used.add(r.piece()));
    Map<Integer, Integer> ids = new HashMap<>();
    List<Piece> kept = new ArrayList<>();
    for (Piece p : results.pieces) {
      if (used.contains(p.id())) {
        ids.put(p.id(), kept.size() + 1);
        kept.add(p.withId(kept.size() + 1));
      }
    }
    results.pieces = kept;
    results.records.replaceAll(r -> r.withPiece(ids.get(r.piece())));
    return results;
  }
}
