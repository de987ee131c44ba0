package dev.mooncake.jcache.bench;

import java.util.List;

/**
 * One JMH run of the plan: one benchmark method over peers × values × key distributions, at one
 * thread count. Each combination runs in its own forked JVM. In the Mooncake part the C driver runs
 * beside it in {@code drivers}' modes (null: every mode the benchmark is compared with, {@code
 * BenchMain.Driver.peersFor}).
 */
public record Segment(
    String name,
    String benchmark,
    List<String> peers,
    List<String> values,
    List<String> keys,
    int threads,
    List<String> drivers) {

  /** A segment with the C driver in every mode its benchmark is compared with. */
  public Segment(
      String name,
      String benchmark,
      List<String> peers,
      List<String> values,
      List<String> keys,
      int threads) {
    this(name, benchmark, peers, values, keys, threads, null);
  }

  public int runs() {
    return peers.size() * values.size() * keys.size();
  }
}
