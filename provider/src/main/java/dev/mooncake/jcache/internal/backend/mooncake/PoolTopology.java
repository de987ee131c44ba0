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
import java.util.List;

/**
 * What the master's admin server ({@code master_metrics_address}) says about a {@code
 * standalone-store} topology, for the config doctor: which pool segments values would go to (as
 * {@link PoolSegments} chooses them), how much room they have, whether a segment is mounted. One
 * snapshot of {@code GET /get_segments_detail}; nothing here is used on the data path.
 */
public final class PoolTopology {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration REQUEST_BOUND = Duration.ofSeconds(5);

  /** One mounted segment: name, status, capacity and bytes in use (-1 when not reported). */
  public record Segment(String name, String status, long capacityBytes, long usedBytes) {
    public long freeBytes() {
      return usedBytes < 0 ? capacityBytes : Math.max(0, capacityBytes - usedBytes);
    }
  }

  private final String address;
  private final String detail;

  private PoolTopology(String address, String detail) {
    this.address = address;
    this.detail = detail;
  }

  /** A snapshot read from the master's admin server at {@code host:port}. */
  public static PoolTopology read(String metricsAddress) {
    return new PoolTopology(metricsAddress, get(metricsAddress, "/get_segments_detail"));
  }

  /** A snapshot of a {@code /get_segments_detail} answer already read (tests). */
  static PoolTopology of(String metricsAddress, String detailJson) {
    return new PoolTopology(metricsAddress, detailJson);
  }

  /** The master's {@code /health} answer; throws when it does not answer 200. */
  public static String health(String metricsAddress) {
    return get(metricsAddress, "/health");
  }

  /**
   * The segments values go to: {@code preferred_segments} when the config names them, else the
   * pools {@link PoolSegments#choose} picks from this snapshot (largest first).
   */
  public List<String> valueSegments(MooncakeConfig config) {
    List<String> configured = config.replica().preferredSegments();
    return configured.isEmpty()
        ? PoolSegments.choose(detail, config.lockSegmentSize(), "")
        : configured;
  }

  /** Every segment of the snapshot, as the master lists it. */
  public List<Segment> segments() {
    JsonNode root;
    try {
      root = JSON.readTree(detail);
    } catch (IOException e) {
      throw new StoreException("the master's /get_segments_detail is not JSON", e);
    }
    List<Segment> segments = new ArrayList<>();
    for (JsonNode s : root.path("segments")) {
      segments.add(
          new Segment(
              s.path("segment_name").asText(""),
              s.path("status").asText("OK"),
              s.path("allocator_capacity_bytes").asLong(s.path("size_bytes").asLong(0)),
              s.path("allocator_used_bytes").asLong(-1)));
    }
    return segments;
  }

  /** The segment named {@code name} if the master lists it with status OK. */
  public Segment mounted(String name) {
    return segments().stream()
        .filter(s -> s.name().equals(name) && s.status().equals("OK"))
        .findFirst()
        .orElse(null);
  }

  /** {@code http://host:port/get_segments_detail}, for messages. */
  public String source() {
    return "http://" + address + "/get_segments_detail";
  }

  private static String get(String address, String path) {
    String url = "http://" + address + path;
    try {
      HttpResponse<String> response =
          HttpClient.newBuilder()
              .connectTimeout(REQUEST_BOUND)
              .build()
              .send(
                  HttpRequest.newBuilder(URI.create(url)).timeout(REQUEST_BOUND).build(),
                  HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new StoreException(url + " answered HTTP " + response.statusCode());
      }
      return response.body();
    } catch (IOException e) {
      throw new StoreException(url + " did not answer: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted reading " + url, e);
    }
  }
}
