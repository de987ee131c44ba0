package dev.mooncake.jcache.history;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The cluster of one history run, fresh for it and closed after it: the fake library's
 * cross-process mode (a new shared table) or a real Mooncake (a master of the run's own).
 */
public interface HistoryCluster extends AutoCloseable {

  /**
   * A provider config (JSON) on this cluster: {@code consistency} ("cluster" or "local"), the
   * client's {@code local_hostname}, and {@code extra} JSON members ({@code , "k": v…}) or "".
   */
  String config(String consistency, String localHostname, String extra);

  /** The local_hostname peers use unless they own a named segment. */
  String defaultHostname();

  /** Environment of the peer JVMs. */
  Map<String, String> environment();

  /** More arguments for {@link HistoryPeer} / {@link TenantPeer} (e.g. the fake library). */
  List<String> peerArguments();

  /**
   * A measure of the mounted segments that falls once the cluster has dropped a segment AND the
   * objects in it (the fake's live clients; a real master's total capacity), asked through a live
   * peer where need be.
   */
  long mounted(PeerProcess live) throws Exception;

  /**
   * Whether the cluster still answers {@code witness} while another peer is stopped. A real master
   * is a process of its own; the fake's "master" is a mutex in shared memory, and a peer stopped
   * while it holds that mutex freezes every other process until it runs again.
   */
  default boolean answersWhileAPeerIsStopped(PeerProcess witness) throws Exception {
    return true;
  }

  /**
   * How many segments the cluster has dropped since it started (clients dead or silent past the
   * TTL), or -1 where it cannot say.
   */
  default long droppedSegments(PeerProcess live) throws Exception {
    return -1;
  }

  /**
   * How long the master may take to drop a dead or paused client's segment (client TTL + sweep).
   */
  Duration dropBound();

  /** The local_hostname of a JVM whose segment every JVM of the tenant test prefers. */
  String sharedSegmentHostname();

  /** That JVM's segment name, as preferred_segments must name it, once it runs as {@code owner}. */
  String sharedSegmentName(PeerProcess owner);

  /** Kills the master (kill -9) and starts a new one; false where this cluster has no master. */
  default boolean canRestartMaster() {
    return false;
  }

  default void killMaster() throws Exception {
    throw new UnsupportedOperationException("no master to kill");
  }

  /** Starts the master again and returns once it accepts connections. */
  default void startMaster() throws Exception {
    throw new UnsupportedOperationException("no master to start");
  }

  /**
   * Whether this cluster can run the standalone topology: the values in a pool process's segment
   * ({@code mooncake_client}, or the fake's stand-in), the app JVMs in {@code standalone-store}
   * with a lock segment each.
   */
  default boolean hasPool() {
    return false;
  }

  /**
   * Starts the pool (once it has mounted its segment) and answers the app JVMs' config on it, as
   * {@link #config} does for the embedded topology.
   */
  default String startPoolAndConfigure(String consistency, String extra) throws Exception {
    throw new UnsupportedOperationException("no pool");
  }

  /** Kills the pool ({@code kill -9}) and returns once it is gone. */
  default void killPool() throws Exception {
    throw new UnsupportedOperationException("no pool");
  }

  /** Starts a new pool (another segment name) and returns once it is mounted. */
  default void startPool() throws Exception {
    throw new UnsupportedOperationException("no pool");
  }

  @Override
  void close() throws Exception;
}
