package dev.mooncake.jcache.internal.event.remote;

/**
 * Follows the publisher's sequence numbers. The master numbers every message from 1 and skips a
 * number for each event it drops under back-pressure (and for a failed send), so a number other
 * than the next one means events were lost; a number not above the last one means a new publisher
 * (a restarted master) or a replay: in both cases what this JVM learned before cannot be trusted.
 */
final class SequenceTracker {
  enum Verdict {
    /** The first message after (re)connecting: nothing is known about what came before. */
    FIRST,
    /** The next number: nothing lost. */
    NEXT,
    /** Numbers were skipped: events were dropped. */
    GAP,
    /** The number went back: the publisher restarted (or replays). */
    RESTART
  }

  private boolean started;
  private long last;

  Verdict next(long sequence) {
    Verdict verdict;
    if (!started) {
      verdict = Verdict.FIRST;
    } else if (sequence == last + 1) {
      verdict = Verdict.NEXT;
    } else if (Long.compareUnsigned(sequence, last) > 0) {
      verdict = Verdict.GAP;
    } else {
      verdict = Verdict.RESTART;
    }
    started = true;
    last = sequence;
    return verdict;
  }

  /** Forgets the last number (the connection dropped: the next message starts afresh). */
  void reset() {
    started = false;
  }
}
