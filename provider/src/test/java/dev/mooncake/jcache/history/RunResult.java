package dev.mooncake.jcache.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What one {@link HistoryRun} recorded and what the checks found: the merged history (losses
 * included), the failed calls, torn reads, values read under another key, the checker's report, the
 * fault timeline and the durations.
 */
record RunResult(
    HistoryRun.Plan plan,
    List<Operation> history,
    List<String> failures,
    List<String> torn,
    List<String> foreign,
    long unexpectedDrops,
    Report report,
    List<String> timeline,
    long originNanos,
    long runNanos,
    long checkNanos) {

  /** How many failing operations a summary quotes. */
  private static final int QUOTED = 3;

  long operations() {
    return history.stream().filter(op -> !op.kind().isLoss()).count();
  }

  long unknown() {
    return history.stream().filter(op -> !op.kind().isLoss() && op.outcomeUnknown()).count();
  }

  /** Operations by the path of their call ({@code sync}, {@code async}, {@code zcGet}, …). */
  Map<String, Long> paths() {
    return history.stream()
        .filter(op -> !op.kind().isLoss())
        .collect(
            Collectors.groupingBy(
                op -> op.process().substring(op.process().indexOf(':') + 1),
                TreeMap::new,
                Collectors.counting()));
  }

  Map<Verdict, Long> verdicts() {
    return report.keys().stream()
        .collect(Collectors.groupingBy(KeyResult::verdict, TreeMap::new, Collectors.counting()));
  }

  /**
   * Failed calls that refused another cache's object by its type: a String cache's read of a {@code
   * byte[]} ({@code ValueTypeCodec}: "… holds a byte[], not a value of cache …") or the {@code
   * byte[]} cache's read of a serialized value ({@code EntryStorage}: "… is not a byte[] (format
   * …"). The workload writes neither under the other cache's keys, so each is a foreign read that a
   * check other than the owner hash stopped; the checks-off control counts them.
   */
  List<String> refusedAsAnotherCaches() {
    return failures.stream()
        .filter(
            f -> f.contains(", not a value of cache '") || f.contains("' is not a byte[] (format "))
        .toList();
  }

  /** Whether the cluster kept its promises: every key linearizable, no foreign or torn value. */
  boolean clean() {
    return report.allLinearizable() && foreign.isEmpty() && torn.isEmpty() && unexpectedDrops == 0;
  }

  /** The reasons this run is not clean (or is too empty to say), one line each. */
  List<String> problems(double minimumKnownShare) {
    List<String> problems = new ArrayList<>();
    Set<String> withForeign = keysWithForeignReads();
    for (KeyResult key : report.notLinearizable()) {
      problems.add(
          "key "
              + key.key()
              + " NOT linearizable"
              + (withForeign.contains(key.key()) ? " (it read another key's value)" : "")
              + ": "
              + key.explanation());
    }
    for (KeyResult key : report.undecided()) {
      problems.add("key " + key.key() + " undecided: " + key.explanation());
    }
    if (!foreign.isEmpty()) {
      problems.add(foreign.size() + " values read under another key, e.g. " + quote(foreign));
    }
    if (!torn.isEmpty()) {
      problems.add(torn.size() + " torn values read, e.g. " + quote(torn));
    }
    if (unexpectedDrops != 0) {
      problems.add(
          unexpectedDrops
              + " segments dropped that no fault meant to (missed heartbeats?): the run is void");
    }
    long allowed = (long) Math.floor(allowedUnknownShare(plan) * operations());
    if (unknown() > allowed) {
      problems.add(
          String.format(
              Locale.ROOT,
              "%d of %d calls ended with an unknown outcome, above the %.0f %% (%d) %s allows: %s;"
                  + " failures e.g. %s",
              unknown(),
              operations(),
              allowedUnknownShare(plan) * 100,
              allowed,
              plan.fault() == HistoryRun.Fault.NONE && !plan.cpuHog()
                  ? "a run without faults"
                  : "this scenario",
              unknownReasons(),
              quote(failures)));
    }
    long refusals = unknownReasons().getOrDefault(INTEGRITY_REFUSAL, 0L);
    if (plan.fault() == HistoryRun.Fault.NONE && refusals > 0) {
      problems.add(
          refusals
              + " integrity refusals (a value read again five times and still not the key's) in a"
              + " run without faults");
    }
    long known = operations() - unknown();
    // never more than the scenario's allowed unknown share leaves known
    if (known < Math.min(minimumKnownShare, 1 - allowedUnknownShare(plan)) * plan.ops()) {
      problems.add(
          "only "
              + known
              + " operations with a known outcome of "
              + plan.ops()
              + " planned: too few to check; failures e.g. "
              + quote(failures));
    }
    return problems;
  }

  static final String TIME_OUT = "time-out";
  static final String INTEGRITY_REFUSAL = "integrity refusal";
  static final String ERROR = "error";
  static final String NO_COMPLETION = "no completion (its JVM killed or stopped mid-call)";

  /**
   * The share of calls that may end with an unknown outcome: none without a fault (a call that
   * throws there is a bug, whatever it did), a little under a CPU hog (calls may outlast their
   * bound), more where a fault takes a JVM or the master away (its calls in flight, the calls that
   * wait for its locks or fail fast while the master or the pool is gone).
   */
  static double allowedUnknownShare(HistoryRun.Plan plan) {
    return switch (plan.fault()) {
      case NONE -> plan.cpuHog() ? 0.01 : 0.0;
      case KILL -> 0.05;
      case PAUSE -> 0.20;
      case MASTER_RESTART -> 0.25;
      // a real pool's kill -9 fails every write until the master drops its segment (client_ttl,
      // 10 s) and the app JVMs find the new pool (their pool refresh, 5 s): 962 of 4,001
      case POOL_RESTART -> 0.40;
    };
  }

  /**
   * The unknown outcomes by reason: a thrown time-out, integrity refusal or other error, or none.
   */
  Map<String, Long> unknownReasons() {
    Map<String, Long> reasons =
        failures.stream()
            .collect(Collectors.groupingBy(RunResult::reason, TreeMap::new, Collectors.counting()));
    long noCompletion = unknown() - failures.size();
    if (noCompletion > 0) {
      reasons.put(NO_COMPLETION, noCompletion);
    }
    return reasons;
  }

  /** Why a call threw, from its failure line ({@code <call>: <exception class>: <message>}). */
  static String reason(String failure) {
    if (failure.contains("CallTimeoutException")
        || failure.contains("TimeoutException")
        || failure.contains("timed out")) {
      return TIME_OUT;
    }
    if (failure.contains("belongs to another key, cache or tenant")
        || failure.contains("fails its checksum")
        || failure.contains("was not written by this provider")
        || failure.contains("is not as long as its header says")) {
      return INTEGRITY_REFUSAL;
    }
    return ERROR;
  }

  /** Keys of which an operation read another key's value. */
  Set<String> keysWithForeignReads() {
    Set<String> keys = new TreeSet<>();
    for (Operation op : history) {
      if (!op.kind().isLoss()
          && HistoryRun.returnsValue(op.kind())
          && !op.outcomeUnknown()
          && !op.result().equals(Operation.ABSENT)
          && !op.key().equals(Values.ownerOf(op.result()))) {
        keys.add(op.key());
      }
    }
    return keys;
  }

  /** Keys the checker found not linearizable that read no other key's value: other findings. */
  List<String> otherViolations() {
    Set<String> withForeign = keysWithForeignReads();
    return report.notLinearizable().stream()
        .map(KeyResult::key)
        .filter(k -> !withForeign.contains(k))
        .toList();
  }

  private static String quote(List<String> lines) {
    return lines.stream().limit(QUOTED).collect(Collectors.joining(" | "));
  }

  /** How long the workload ran (without the check), in seconds. */
  double runSeconds() {
    return runNanos / 1e9;
  }

  /** One line: sizes, verdicts, counts, durations, faults. */
  String summary() {
    return String.format(
        Locale.ROOT,
        "%s: %d ops %s (%d unknown outcome%s), %d keys %s%s, %d foreign reads%s, %d torn reads, %d"
            + " failed calls%s; run %.1f s, check %.1f s; %s",
        plan.scenario(),
        operations(),
        paths(),
        unknown(),
        unknown() == 0
            ? ""
            : String.format(
                Locale.ROOT,
                ": %s; %.0f %% allowed",
                unknownReasons(),
                allowedUnknownShare(plan) * 100),
        report.keys().size(),
        verdicts(),
        foreign.isEmpty() || otherViolations().isEmpty()
            ? ""
            : " (without a foreign read: " + otherViolations() + ")",
        foreign.size(),
        foreign.isEmpty() ? "" : " (" + quote(foreign) + ")",
        torn.size(),
        failures.size(),
        failures.isEmpty() ? "" : " (" + failureKinds() + ")",
        runNanos / 1e9,
        checkNanos / 1e9,
        timeline.isEmpty() ? "no fault" : String.join("; ", timeline));
  }

  /** Failed calls grouped by exception class and the start of the message. */
  String failureKinds() {
    Map<String, Long> kinds =
        failures.stream()
            .map(RunResult::kind)
            .collect(Collectors.groupingBy(k -> k, TreeMap::new, Collectors.counting()));
    return kinds.entrySet().stream()
        .map(e -> e.getValue() + "× " + e.getKey())
        .collect(Collectors.joining(", "));
  }

  private static String kind(String failure) {
    int colon = failure.indexOf(": ");
    String rest = colon < 0 ? failure : failure.substring(colon + 2);
    return rest.length() <= 160 ? rest : rest.substring(0, 160) + "…";
  }
}
