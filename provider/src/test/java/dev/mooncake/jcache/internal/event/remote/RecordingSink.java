package dev.mooncake.jcache.internal.event.remote;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Records what a subscription hands a sink: event kinds and keys, flushes with their reason. */
final class RecordingSink implements EventSink {
  final BlockingQueue<String> seen = new LinkedBlockingQueue<>();

  @Override
  public void onEvents(List<KvEvent> events) {
    for (KvEvent event : events) {
      seen.add(event.kind() + " " + event.objectKey());
    }
  }

  @Override
  public void onFlush(FlushReason reason, boolean live) {
    seen.add("FLUSH " + reason + (live ? " live" : " not-live"));
  }

  /** The next record (failing after 10 s: the test is broken, not slow). */
  String next() throws InterruptedException {
    String record = seen.poll(10, TimeUnit.SECONDS);
    assertNotNull(record, "nothing arrived within 10 s");
    return record;
  }

  /**
   * Waits for the flush that makes this sink live, skipping only not-live flushes on the way (a
   * loaded machine may drop a stalled handshake and reconnect first); anything else fails.
   */
  void awaitLive() throws InterruptedException {
    String record;
    while (!(record = next()).equals("FLUSH CONNECTED live")) {
      if (!record.startsWith("FLUSH ") || !record.endsWith(" not-live")) {
        throw new AssertionError("expected only not-live flushes before going live, got " + record);
      }
    }
  }

  /** Skips records until one equal to {@code expected}; returns how many were skipped. */
  int skipTo(String expected) throws InterruptedException {
    int skipped = 0;
    while (!next().equals(expected)) {
      skipped++;
    }
    return skipped;
  }
}
