package dev.mooncake.jcache.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;

/**
 * This provider on a real Mooncake with a near cache ({@code near_cache} in the cache's definition,
 * {@code events_endpoint} pointing at the master's KV-event publisher), and the same without one:
 * {@code mooncake-store}'s set-up with {@code "consistency": "local"}. Local, because under {@code
 * "cluster"} every put takes a lock object in the store (three more round trips) and filling
 * 100,000 keys took minutes per fork on this loaded machine (the near part forks dozens of times);
 * a near cache changes reads, and near and off share the write path, so the ratio near ÷ off is the
 * near cache's. {@code mooncake-store} (cluster) stays the Mooncake part's peer.
 *
 * <ul>
 *   <li>{@link #OFF}: no near cache, no events;
 *   <li>{@link #NEAR}: {@code max_entries} = the whole key set, so the Zipfian hot set (and the
 *       tail) fits; the near cache never evicts and every miss is one a put or an event caused;
 *   <li>{@link #NEAR_SMALL}: a tenth of the key set: the hot ranks fit, the tail does not (under
 *       Zipf θ = 0.99 the top tenth of the ranks draw about 80 % of the accesses at 100,000 keys,
 *       70 % at 1,024), so the near cache's admission and eviction are in the figure.
 * </ul>
 */
final class NearPeers {
  static final String NEAR = "mooncake-store-near";
  static final String NEAR_SMALL = "mooncake-store-near-small";
  static final String OFF = "mooncake-store-local";

  /** The peers that keep a near cache. */
  static final List<String> ALL = List.of(NEAR, NEAR_SMALL);

  /** The cache every peer creates ({@link Peers}): the one the file declares the near cache for. */
  private static final String CACHE = "bench";

  private static final ObjectMapper JSON = new ObjectMapper();

  private NearPeers() {}

  /** Whether the peer of this name keeps a near cache (so a benchmark may warm it). */
  static boolean isNear(String peer) {
    return ALL.contains(peer);
  }

  /**
   * The master's KV-event endpoint: {@code MOONCAKE_EVENTS_ENDPOINT}, default the one
   * bench/run-mooncake.sh binds.
   */
  static String eventsEndpoint() {
    return Peers.env("MOONCAKE_EVENTS_ENDPOINT", "tcp://127.0.0.1:5557");
  }

  /** The near cache's {@code max_entries} for this peer and key count. */
  static long maxEntries(String peer, int keyCount) {
    return switch (peer) {
      case NEAR -> keyCount;
      case NEAR_SMALL -> Math.max(1, keyCount / 10);
      default -> throw new IllegalArgumentException("not a near-cache peer: '" + peer + "'");
    };
  }

  static Peer open(String peer, ValueKind kind, int keyCount) {
    if (peer.equals(OFF)) {
      return Peers.mooncake(
          configure(Peers.mooncakeStoreJson(kind, keyCount), 0),
          kind,
          "this provider, Mooncake over TCP, consistency local, no near cache");
    }
    long maxEntries = maxEntries(peer, keyCount);
    String json = configure(Peers.mooncakeStoreJson(kind, keyCount), maxEntries);
    return Peers.mooncake(
        json,
        kind,
        String.format(
            Locale.ROOT,
            "this provider, Mooncake over TCP, consistency local, near cache of %,d entries"
                + " (events %s)",
            maxEntries,
            eventsEndpoint()));
  }

  /**
   * The store's configuration with consistency local and, for {@code maxEntries} > 0, {@code
   * events_endpoint} and the bench cache's near cache.
   */
  static String configure(String storeJson, long maxEntries) {
    try {
      ObjectNode config = (ObjectNode) JSON.readTree(storeJson);
      config.put("consistency", "local");
      if (maxEntries > 0) {
        config.put("events_endpoint", eventsEndpoint());
        config
            .putObject("caches")
            .putObject(CACHE)
            .putObject("near_cache")
            .put("max_entries", maxEntries);
      }
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(config);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
