package dev.mooncake.jcache.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The master's own count of the RPCs it served, by kind, from its Prometheus text on {@code
 * --metrics_port} ({@code master_put_start_requests_total 12}, …): what {@link MasterCapacity}
 * divides by the calls it made, so that "a put is PutStart + PutEnd" is measured, not assumed.
 */
final class MasterMetrics {
  private static final String PREFIX = "master_";
  private static final String SUFFIX = "_requests_total";

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI uri;

  MasterMetrics(URI uri) {
    this.uri = uri;
  }

  /** The request counters now, by RPC name ({@code put_start}, {@code get_replica_list}, …). */
  Map<String, Long> requests() throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(uri + " answered " + response.statusCode());
    }
    return parse(response.body());
  }

  /**
   * The {@code master_*_requests_total} counters of a Prometheus text body, summed over their
   * labels, by the name between prefix and suffix. A line that is not a counter sample is skipped.
   */
  static Map<String, Long> parse(String body) {
    Map<String, Long> counts = new TreeMap<>();
    for (String line : body.split("\n")) {
      line = line.trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int end = line.indexOf('{');
      int space = line.indexOf(' ');
      if (space < 0) {
        continue;
      }
      String name = line.substring(0, end >= 0 && end < space ? end : space);
      if (!name.startsWith(PREFIX) || !name.endsWith(SUFFIX)) {
        continue;
      }
      String value = line.substring(line.lastIndexOf(' ') + 1);
      try {
        long count = (long) Double.parseDouble(value);
        counts.merge(
            name.substring(PREFIX.length(), name.length() - SUFFIX.length()), count, Long::sum);
      } catch (NumberFormatException notASample) {
        // a label value with a space, or garbage: not a counter we can use
      }
    }
    return counts;
  }

  /** {@code after − before} per name, only the names that moved. */
  static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> moved = new TreeMap<>();
    after.forEach(
        (name, count) -> {
          long d = count - before.getOrDefault(name, 0L);
          if (d != 0) {
            moved.put(name, d);
          }
        });
    return moved;
  }
}
