package dev.mooncake.jcache.history;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A loaded machine: one busy shell loop per core, in processes of their own (not niced), so the
 * peers' threads, Mooncake's and the lock holders compete for every core. Closing ends them.
 */
final class CpuHog implements AutoCloseable {
  private final List<Process> loops = new ArrayList<>();

  CpuHog() throws IOException {
    int cores = Runtime.getRuntime().availableProcessors();
    try {
      for (int i = 0; i < cores; i++) {
        loops.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
      }
    } catch (IOException e) {
      close();
      throw e;
    }
  }

  int loops() {
    return loops.size();
  }

  @Override
  public void close() {
    for (Process loop : loops) {
      loop.destroyForcibly();
    }
    for (Process loop : loops) {
      try {
        loop.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
