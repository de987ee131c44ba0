package dev.mooncake.jcache.internal.backend.mooncake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.StoreException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where values go: the config's {@code preferred_segments}, or, for a {@code standalone-store}
 * client with a lock segment and {@code master_metrics_address}, the pool's segments as the master
 * lists them ({@code GET /get_segments_detail} on its metrics port). Under P2PHANDSHAKE a pool's
 * segment name carries a port chosen at its start, so it cannot be written into a config.
 *
 * <p>A segment counts as a pool when it is larger than this client's {@code lock_segment_size}: app
 * JVMs contribute exactly that much (every one of a cluster uses the same size), a {@code
 * mooncake_client} pool far more. Read when the store opens, then again every few seconds by {@link
 * PoolPlacement}: a pool restarted under P2PHANDSHAKE comes back under another name.
 */
final class PoolSegments {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Bound of the one HTTP request to the master (its admin server answers in milliseconds). */
  private static final Duration REQUEST_BOUND = Duration.ofSeconds(5);

  private PoolSegments() {}

  /** The preferred segments of value puts; {@code own} is this client's segment name. */
  static List<String> forValues(MooncakeConfig config, String own) {
    if (!discovers(config)) {
      return config.replica().preferredSegments();
    }
    List<String> pools = discover(config, own);
    if (pools.isEmpty()) {
      throw new StoreException(
          "no pool segment is mounted at the master ("
              + url(config)
              + " lists none larger than lock_segment_size "
              + config.lockSegmentSize()
              + " bytes besides this client's "
              + own
              + "): start the mooncake_client pool first, or name it in preferred_segments");
    }
    return pools;
  }

  /**
   * Whether value puts go to discovered pools: a standalone client with a lock segment and {@code
   * master_metrics_address}, and no {@code preferred_segments} of its own.
   */
  static boolean discovers(MooncakeConfig config) {
    return config.replica().preferredSegments().isEmpty()
        && config.lockSegmentSize() > 0
        && config.masterMetricsAddress() != null;
  }

  /** The pools the master lists now (possibly none); throws when it cannot be asked. */
  static List<String> discover(MooncakeConfig config, String own) {
    String url = url(config);
    String body;
    try {
      body =
          HttpClient.newBuilder()
              .connectTimeout(REQUEST_BOUND)
              .build()
              .send(
                  HttpRequest.newBuilder(URI.create(url)).timeout(REQUEST_BOUND).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
    } catch (IOException e) {
      throw new StoreException(
          "cannot list the pool's segments at " + url + " (master_metrics_address): " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted listing the pool's segments at " + url, e);
    }
    return choose(body, config.lockSegmentSize(), own);
  }

  private static String url(MooncakeConfig config) {
    return "http://" + config.masterMetricsAddress() + "/get_segments_detail";
  }

  /**
   * The pools in a {@code /get_segments_detail} answer: segments with status OK, other than {@code
   * own}, larger than {@code lockSegmentSize}; the largest first (Mooncake tries them in order).
   */
  static List<String> choose(String detailJson, long lockSegmentSize, String own) {
    JsonNode root;
    try {
      root = JSON.readTree(detailJson);
    } catch (IOException e) {
      throw new StoreException(
          "the master's /get_segments_detail is not JSON: " + abbreviate(detailJson), e);
    }
    JsonNode segments = root.path("segments");
    if (!segments.isArray()) {
      throw new StoreException(
          "the master's /get_segments_detail has no segment list: " + abbreviate(detailJson));
    }
    List<JsonNode> pools = new ArrayList<>();
    for (JsonNode segment : segments) {
      String name = segment.path("segment_name").asText("");
      boolean ok = segment.path("status").asText("OK").equals("OK");
      if (ok
          && !name.isEmpty()
          && !name.equals(own)
          && segment.path("size_bytes").asLong(0) > lockSegmentSize) {
        pools.add(segment);
      }
    }
    pools.sort(Comparator.comparingLong((JsonNode s) -> s.path("size_bytes").asLong()).reversed());
    return pools.stream().map(s -> s.path("segment_name").asText()).toList();
  }

  private static String abbreviate(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "…";
  }
}
