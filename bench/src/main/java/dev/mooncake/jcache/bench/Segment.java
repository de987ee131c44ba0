package dev.mooncake.jcache.bench;

import java.util.List;

/**
 * One JMH run of the plan: one benchmark method over peers × values × key distributions, at one
 * thread count. Each combination runs in its own forked JVM.
 */
public record Segment(
    String name,
    String benchmark,
    List<String> peers,
    List<String> values,
    List<String> keys,
    int threads) {

  public int runs() {
    return peers.size() * values.size() * keys.size();
  }
}
