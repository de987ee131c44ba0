package dev.mooncake.jcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How many putAll chunks a fill sends at once: overlap for small values, a byte cap for big. */
class FillThreadsTest {
  @Test
  void inProcessPeersFillOnOneThread() {
    assertEquals(1, CacheBenchmark.fillThreads(false, 256, 1024));
  }

  @Test
  void smallValuesToARemotePeerOverlapOnEveryThread() {
    // 256 × 1 KiB = 256 KiB a chunk: eight in flight are 2 MiB, far under the cap
    assertEquals(CacheBenchmark.REMOTE_FILL_THREADS, CacheBenchmark.fillThreads(true, 256, 1024));
  }

  @Test
  void bigValuesKeepTheBytesInFlightUnderTheCap() {
    // 256 × 64 KiB = 16 MiB a chunk: two fit in 32 MiB
    assertEquals(2, CacheBenchmark.fillThreads(true, 256, 64 * 1024));
    // 64 × 1 MiB = 64 MiB a chunk, over the cap alone: one at a time, never zero
    assertEquals(1, CacheBenchmark.fillThreads(true, 64, Peers.MIB));
  }
}
