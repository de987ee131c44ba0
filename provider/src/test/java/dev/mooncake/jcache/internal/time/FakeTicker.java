package dev.mooncake.jcache.internal.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when told to (Caffeine's FakeTicker): tests advance it. */
public final class FakeTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong();
  private final long startMillis;

  public FakeTicker() {
    this(1_700_000_000_000L);
  }

  public FakeTicker(long startEpochMillis) {
    this.startMillis = startEpochMillis;
  }

  /** Moves time forward. */
  public FakeTicker advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
    return this;
  }

  public FakeTicker advanceMillis(long millis) {
    return advance(Duration.ofMillis(millis));
  }

  @Override
  public long epochMillis() {
    return startMillis + nanos.get() / 1_000_000;
  }

  @Override
  public long nanos() {
    return nanos.get();
  }
}
