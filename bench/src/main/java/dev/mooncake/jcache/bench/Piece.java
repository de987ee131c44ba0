package dev.mooncake.jcache.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run that made some of a part's stored records ({@link Record#piece()} is its id): the meta
 * lines that run wrote (command, date and time taken, level, data, JDK, machine with its load
 * average, versions with the provider's commit, combinations that failed). A full run too long for
 * one sitting is assembled from pieces (docs/benchmarks.md, "Runs in pieces"); each keeps its own
 * facts.
 */
public record Piece(int id, Map<String, String> meta) {
  private static final Pattern TOOK = Pattern.compile(".*\\(took ([^)]*)\\).*");
  private static final Pattern LOAD = Pattern.compile(".*load average at the end (\\S+).*");
  private static final Pattern COMMIT = Pattern.compile("^this provider \\S+ \\(([^)]+)\\).*");

  public Piece {
    meta = meta == null ? new LinkedHashMap<>() : new LinkedHashMap<>(meta);
  }

  Piece withId(int newId) {
    return new Piece(newId, meta);
  }

  /** The command that ran it, without the backticks. */
  String command() {
    return meta.getOrDefault("Command", "?").replace("`", "");
  }

  /** When it started (ISO-8601, UTC). */
  String date() {
    return meta.getOrDefault("Date", "?").replaceFirst(" \\(.*", "");
  }

  /** The machine time it took, e.g. "63 min 7 s". */
  String took() {
    return group(TOOK, "Date");
  }

  /** The load average when it ended (the machine must be quiet for figures that decide). */
  String load() {
    return group(LOAD, "Machine");
  }

  /** The provider's commit it measured. */
  String commit() {
    return group(COMMIT, "Versions");
  }

  private String group(Pattern pattern, String key) {
    Matcher m = pattern.matcher(meta.getOrDefault(key, ""));
    return m.matches() ? m.group(1) : "?";
  }

  /** "`command`, date, took …, load …, provider commit": one piece in a report's header. */
  String summary() {
    return "`"
        + command()
        + "` "
        + date()
        + ", took "
        + took()
        + ", load "
        + load()
        + ", provider "
        + commit();
  }
}
