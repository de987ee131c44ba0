package dev.mooncake.jcache.internal.event.remote;

import dev.mooncake.jcache.internal.event.remote.EventSink.FlushReason;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * One ZeroMQ SUB connection to the master's KV event publisher, on its own daemon thread, handing
 * each cache namespace its events ({@link EventSink}). ZeroMQ reconnects by itself; a socket
 * monitor tells this thread when the connection drops, and heartbeats (ZMTP PING, answered by the
 * master's libzmq) turn a silent dead peer into a drop. Every drop, gap, restart and undecodable
 * message flushes every sink.
 *
 * <p>Live: events are known to reach this JVM only once a message has arrived on the current
 * connection (ZeroMQ drops what a PUB sends before the subscription reaches it). While not live,
 * the optional probe runs every {@code probeIntervalMillis} (at once after a reconnect): it makes
 * the master publish something (a put and remove of a key outside every cache's namespace), so a
 * quiet cluster becomes live within one round trip.
 */
public final class EventSubscription implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventSubscription.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Ticker CLOCK = Ticker.system(); // probes pace a real socket: real time

  /** Larger messages are refused by ZeroMQ itself (the master's batches are a few KiB). */
  static final long MAX_MESSAGE_BYTES = 64L << 20;

  /** How long a receive waits for a message before the monitor and the probe are looked at. */
  private static final int RECEIVE_TIMEOUT_MILLIS = 100;

  private static final int MAX_MESSAGES_PER_TURN = 1024;
  private static final int HEARTBEAT_INTERVAL_MILLIS = 1000;
  private static final int HEARTBEAT_TIMEOUT_MILLIS = 3000;
  private static final int HANDSHAKE_TIMEOUT_MILLIS = 2000;

  private final String endpoint;
  private final Runnable probe;
  private final long probeIntervalNanos;
  private final Map<String, List<EventSink>> sinks = new ConcurrentHashMap<>();

  /** Sinks of keys outside every cache's namespace, by key prefix (e.g. lock keeping's wants). */
  private final Map<String, List<EventSink>> watchers = new ConcurrentHashMap<>();

  private final SequenceTracker sequence = new SequenceTracker();
  private final Thread thread;
  private final CountDownLatch started = new CountDownLatch(1);
  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong turns = new AtomicLong();
  private final AtomicLong flushes = new AtomicLong();
  private final Object flushLock = new Object();
  private volatile boolean live;
  private volatile boolean closed;
  // When the next probe is due (its receive thread only).
  private Deadline nextProbe = Deadline.afterNanos(0, CLOCK);

  /**
   * Connects to {@code endpoint} ({@code tcp://host:port}, checked by the config) and starts the
   * thread. {@code probe} may be null (then a quiet stream stays not live until its first event).
   */
  public EventSubscription(String endpoint, Runnable probe, long probeIntervalMillis) {
    this.endpoint = endpoint;
    this.probe = probe;
    this.probeIntervalNanos = probeIntervalMillis * 1_000_000L;
    this.thread = new Thread(this::run, "mooncake-events-" + IDS.incrementAndGet());
    thread.setDaemon(true);
    thread.start();
    try {
      started.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public String endpoint() {
    return endpoint;
  }

  /** Whether a message has arrived since the connection was (re)made. */
  public boolean isLive() {
    return live;
  }

  /** Messages received (all namespaces), for tests and statistics. */
  public long messages() {
    return messages.get();
  }

  /**
   * Turns of the receive loop: one per message or batch of messages, or per timeout while quiet
   * (for tests: a loop that spins instead of waiting shows here).
   */
  long turns() {
    return turns.get();
  }

  /** The receive thread's id (for tests: its CPU time). */
  long threadId() {
    return thread.getId();
  }

  /** How many times the sinks were flushed. */
  public long flushes() {
    return flushes.get();
  }

  /**
   * Adds a sink for the keys starting with {@code prefix} (a cache's {@code mcj/<t>/<c>/}). It is
   * flushed at once with the current liveness, so it starts from a known state.
   */
  public void register(String prefix, EventSink sink) {
    // Under the flush lock: a flush with the liveness read here can never overtake a later one
    // of this thread's (else a sink could end up not live while the stream is).
    synchronized (flushLock) {
      sinks.computeIfAbsent(prefix, p -> new CopyOnWriteArrayList<>()).add(sink);
      sink.onFlush(FlushReason.CONNECTED, live);
    }
  }

  public void deregister(String prefix, EventSink sink) {
    remove(sinks, prefix, sink);
  }

  /**
   * Adds a sink for the keys starting with {@code keyPrefix}, a prefix outside every cache's
   * namespace ({@code mcjwant/}, say). Flushed at once with the current liveness, as {@link
   * #register}.
   */
  public void watch(String keyPrefix, EventSink sink) {
    if (keyPrefix.isEmpty() || KeyPrefixes.cachePrefix(keyPrefix + "x/y/z") != null) {
      throw new IllegalArgumentException(
          "a watched prefix must lie outside every cache's namespace, got '" + keyPrefix + "'");
    }
    synchronized (flushLock) {
      watchers.computeIfAbsent(keyPrefix, p -> new CopyOnWriteArrayList<>()).add(sink);
      sink.onFlush(FlushReason.CONNECTED, live);
    }
  }

  public void unwatch(String keyPrefix, EventSink sink) {
    remove(watchers, keyPrefix, sink);
  }

  private static void remove(Map<String, List<EventSink>> map, String prefix, EventSink sink) {
    map.computeIfPresent(
        prefix,
        (p, list) -> {
          list.remove(sink);
          return list.isEmpty() ? null : list;
        });
  }

  private void run() {
    String monitorAddress = "inproc://mooncake-events-monitor-" + IDS.incrementAndGet();
    try (ZContext context = new ZContext()) {
      ZMQ.Socket socket = context.createSocket(SocketType.SUB);
      socket.setLinger(0);
      socket.setMaxMsgSize(MAX_MESSAGE_BYTES);
      socket.setRcvHWM(100_000);
      socket.setReconnectIVL(100);
      socket.setReconnectIVLMax(2000);
      socket.setHeartbeatIvl(HEARTBEAT_INTERVAL_MILLIS);
      socket.setHeartbeatTimeout(HEARTBEAT_TIMEOUT_MILLIS);
      // A handshake that stalls (seen on loopback under load) is dropped and retried soon, not
      // after ZeroMQ's default 30 s.
      socket.setHandshakeIvl(HANDSHAKE_TIMEOUT_MILLIS);
      socket.monitor(monitorAddress, ZMQ.EVENT_HANDSHAKE_PROTOCOL | ZMQ.EVENT_DISCONNECTED);
      ZMQ.Socket monitor = context.createSocket(SocketType.PAIR);
      monitor.connect(monitorAddress);
      // A blocking receive with a timeout, not a ZMQ.Poller over both sockets: JeroMQ's poll
      // registers and selects the sockets' channels anew on every call, and with events flowing
      // the thread spent its time in zmq.ZMQ.poll (half of a near-cache benchmark's CPU samples,
      // on the one CPU it shared with the reads); a receive waits on the socket's own signaler.
      socket.setReceiveTimeOut(RECEIVE_TIMEOUT_MILLIS);
      socket.subscribe(new byte[0]); // the master's topic is empty: take everything
      socket.connect(endpoint);
      nextProbe = Deadline.afterNanos(0, CLOCK); // due now
      started.countDown();
      while (!closed && !Thread.currentThread().isInterrupted()) {
        turns.incrementAndGet();
        ZMsg first = ZMsg.recvMsg(socket); // null after the timeout
        if (first != null) {
          // Handled before the monitor is read: a message received before a drop counts for the
          // old connection (the flush that follows then makes the stream not live), never as
          // the first of a new one.
          messages.incrementAndGet();
          handle(first);
          drainMessages(socket);
        }
        // Read after every message and every timeout: a drop is seen within one timeout (no
        // messages come on a dropped connection) or just after the first messages of the next
        // connection, which are then judged by the old one's numbers (a gap or a restart
        // flushes; the drop's flush follows), so they never make the stream live early.
        drainMonitor(monitor, socket);
        maybeProbe();
      }
    } catch (RuntimeException | Error e) {
      if (!closed) {
        LOG.error("event subscription to {} stopped: {}", endpoint, e.toString(), e);
      }
    } finally {
      started.countDown();
      live = false;
      flushAll(FlushReason.CLOSED);
    }
  }

  private void drainMonitor(ZMQ.Socket monitor, ZMQ.Socket socket) {
    ZMQ.Event event;
    while ((event = ZMQ.Event.recv(monitor, ZMQ.DONTWAIT)) != null) {
      if (event.getEvent() == ZMQ.EVENT_HANDSHAKE_PROTOCOL) {
        nextProbe = Deadline.afterNanos(0, CLOCK); // due now
        LOG.debug("events: connected to {}", endpoint);
      } else if (event.getEvent() == ZMQ.EVENT_DISCONNECTED) {
        // Messages already received came before the drop: handle them first, or one of them
        // would count as the first of a new connection and make the stream live again.
        drainMessages(socket);
        sequence.reset();
        if (live) {
          LOG.warn("events: connection to {} dropped; near caches flushed, reconnecting", endpoint);
        }
        live = false;
        flushAll(FlushReason.DISCONNECTED);
      }
    }
  }

  private void drainMessages(ZMQ.Socket socket) {
    for (int i = 0; i < MAX_MESSAGES_PER_TURN; i++) {
      ZMsg message = ZMsg.recvMsg(socket, ZMQ.DONTWAIT);
      if (message == null) {
        return;
      }
      messages.incrementAndGet();
      handle(message);
    }
  }

  private void handle(ZMsg message) {
    List<KvEvent> events;
    long number;
    try {
      if (message.size() != 3) {
        throw new KvEventFormatException(
            "message has " + message.size() + " frames, expected 3 (topic, sequence, payload)");
      }
      message.pop(); // topic: the master's is empty; nothing to check
      number = KvEventDecoder.sequence(message.pop().getData());
      events = KvEventDecoder.events(message.pop().getData());
    } catch (KvEventFormatException e) {
      LOG.warn(
          "events from {}: undecodable message ({}); near caches flushed",
          endpoint,
          e.getMessage());
      // It may have carried invalidations: forget, and judge the next number afresh.
      sequence.reset();
      flushAll(FlushReason.UNDECODABLE);
      return;
    }
    switch (sequence.next(number)) {
      case FIRST -> {
        live = true;
        flushAll(FlushReason.CONNECTED);
      }
      case GAP -> {
        LOG.warn(
            "events from {}: sequence jumped to {}; the master dropped events, near caches"
                + " flushed",
            endpoint,
            number);
        flushAll(FlushReason.GAP);
      }
      case RESTART -> {
        LOG.warn(
            "events from {}: sequence restarted at {} (new master?); near caches flushed",
            endpoint,
            number);
        flushAll(FlushReason.RESTART);
      }
      case NEXT -> {}
    }
    dispatch(events);
  }

  /** Hands each sink its namespace's events; events of other namespaces are dropped here. */
  private void dispatch(List<KvEvent> events) {
    Map<String, List<KvEvent>> byPrefix = null;
    for (KvEvent event : events) {
      if (event.kind() == KvEvent.Kind.CLEARED) {
        flushAll(FlushReason.CLEARED);
        continue;
      }
      String prefix = KeyPrefixes.cachePrefix(event.objectKey());
      if (prefix == null) {
        prefix = watchedPrefix(event.objectKey());
      } else if (!sinks.containsKey(prefix)) {
        prefix = null;
      }
      if (prefix == null) {
        continue;
      }
      if (byPrefix == null) {
        byPrefix = new java.util.LinkedHashMap<>();
      }
      byPrefix.computeIfAbsent(prefix, p -> new ArrayList<>()).add(event);
    }
    if (byPrefix == null) {
      return;
    }
    for (Map.Entry<String, List<KvEvent>> entry : byPrefix.entrySet()) {
      List<EventSink> targets = sinks.get(entry.getKey());
      if (targets == null) {
        targets = watchers.getOrDefault(entry.getKey(), List.of());
      }
      for (EventSink sink : targets) {
        try {
          sink.onEvents(entry.getValue());
        } catch (RuntimeException e) {
          LOG.error("event sink for {} failed", entry.getKey(), e);
        }
      }
    }
  }

  /** The watched prefix {@code objectKey} starts with, or null (the watchers are few). */
  private String watchedPrefix(String objectKey) {
    if (objectKey == null || watchers.isEmpty()) {
      return null;
    }
    for (String prefix : watchers.keySet()) {
      if (objectKey.startsWith(prefix)) {
        return prefix;
      }
    }
    return null;
  }

  private void flushAll(FlushReason reason) {
    flushes.incrementAndGet();
    synchronized (flushLock) {
      boolean isLive = live;
      for (Map<String, List<EventSink>> map : List.of(sinks, watchers)) {
        for (List<EventSink> list : map.values()) {
          for (EventSink sink : list) {
            try {
              sink.onFlush(reason, isLive);
            } catch (RuntimeException e) {
              LOG.error("event sink flush failed", e);
            }
          }
        }
      }
    }
  }

  private void maybeProbe() {
    // Not only once connected: a monitor event can be missed, and a probe to nobody is harmless.
    if (probe == null || live || !nextProbe.expired()) {
      return;
    }
    nextProbe = Deadline.afterNanos(probeIntervalNanos, CLOCK);
    // The probe does store I/O: never on this thread, which must keep reading.
    Thread prober =
        new Thread(
            () -> {
              try {
                probe.run();
              } catch (RuntimeException e) {
                LOG.debug("events: liveness probe failed: {}", e.toString());
              }
            },
            thread.getName() + "-probe");
    prober.setDaemon(true);
    prober.start();
  }

  /** Stops the thread; every sink gets a last flush (not live). */
  @Override
  public void close() {
    closed = true;
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
