package dev.mooncake.jcache.internal.event.remote;

import java.util.List;

/**
 * Receives one cache namespace's share of the event stream. Called on the subscription's thread, in
 * stream order: implementations hand work that blocks (store reads, listeners) to an executor.
 */
public interface EventSink {
  /** The events of one message whose keys lie in this sink's namespace, in the stream's order. */
  void onEvents(List<KvEvent> events);

  /**
   * The stream may have missed events (a gap, a reconnect, a restarted master, an undecodable
   * message, a tenant-wide clear): whatever was learned from it before must be forgotten. {@code
   * live} says whether events are flowing now; while it is false, nothing seen from the stream may
   * be trusted to stay current (a near cache serves nothing).
   */
  void onFlush(FlushReason reason, boolean live);

  /** Why a sink is flushed. */
  enum FlushReason {
    /** The first message after (re)connecting: events before it may have been missed. */
    CONNECTED,
    /** Sequence numbers were skipped: the publisher dropped events. */
    GAP,
    /** Sequence numbers went back: a new master. */
    RESTART,
    /** The connection dropped (or its heartbeats stopped). */
    DISCONNECTED,
    /** A message could not be decoded. */
    UNDECODABLE,
    /** The master announced that a tenant's objects were all cleared. */
    CLEARED,
    /** The subscription was closed. */
    CLOSED
  }
}
