package dev.mooncake.jcache.history;

import java.util.List;

/** The verdicts on every key of a history, in key order. */
public record Report(List<KeyResult> keys) {
  /** How many failing keys {@link #summary()} explains in full. */
  private static final int EXPLAINED_KEYS = 5;

  public Report {
    keys = List.copyOf(keys);
  }

  public List<KeyResult> notLinearizable() {
    return withVerdict(Verdict.NOT_LINEARIZABLE);
  }

  public List<KeyResult> undecided() {
    return withVerdict(Verdict.UNDECIDED);
  }

  /** True only if every key was decided linearizable (an undecided key is not). */
  public boolean allLinearizable() {
    return keys.stream().allMatch(k -> k.verdict() == Verdict.LINEARIZABLE);
  }

  /** The counts, then the explanation of the first few keys that are not (known) linearizable. */
  public String summary() {
    List<KeyResult> bad = notLinearizable();
    List<KeyResult> undecided = undecided();
    StringBuilder text = new StringBuilder();
    text.append(keys.size())
        .append(" keys: ")
        .append(keys.size() - bad.size() - undecided.size())
        .append(" linearizable, ")
        .append(bad.size())
        .append(" not linearizable, ")
        .append(undecided.size())
        .append(" undecided");
    int shown = 0;
    for (List<KeyResult> group : List.of(bad, undecided)) {
      for (KeyResult k : group) {
        if (shown++ == EXPLAINED_KEYS) {
          text.append("\n(").append(bad.size() + undecided.size() - EXPLAINED_KEYS);
          return text.append(" more keys not shown)").toString();
        }
        text.append("\n\nkey ").append(k.key()).append(": ").append(k.verdict());
        text.append(", ").append(k.operations()).append(" operations\n").append(k.explanation());
      }
    }
    return text.toString();
  }

  private List<KeyResult> withVerdict(Verdict verdict) {
    return keys.stream().filter(k -> k.verdict() == verdict).toList();
  }
}
