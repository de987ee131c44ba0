package dev.mooncake.jcache.internal.lock.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mooncake.jcache.internal.time.Deadline;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Where a lock record landed. {@code preferred_segments} is only a preference: when the holder's
 * own segment has no room, Mooncake places the record in another client's segment, where it does
 * not die with its holder (docs/cluster-consistency.md, "Placement fallback"). The C ABI cannot
 * tell, so an acquisition asks the master's admin server ({@code master_metrics_address}): {@code
 * GET /query_key?key=} lists each replica's transport endpoint and buffer address (not its
 * segment's name), and {@code GET /get_segments_detail} gives each segment's endpoint and address
 * range, read once for the holder's own segment (it does not move while the client lives).
 *
 * <p>The admin server does not decode the query (measured on Mooncake 3b5a594: {@code %2F} is not
 * {@code /}), so a key is sent as is; lock keys are {@code mcjlock/} and base64url parts, which
 * need no escaping. Another key is refused rather than asked under a name that cannot match.
 */
public final class LockPlacement {
  /** No check: no admin server configured (or a store without segments, such as tests'). */
  public static final LockPlacement UNCHECKED = new LockPlacement(null, null, Duration.ZERO);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SENDABLE = Pattern.compile("[A-Za-z0-9_./-]+");

  /** At most this long per request, less when the acquisition has less left. */
  static final Duration REQUEST_BOUND = Duration.ofSeconds(1);

  /** One mounted segment as the master lists it: a replica is in it when both match. */
  private record Segment(String name, String endpoint, long base, long size) {
    boolean holds(String replicaEndpoint, long address) {
      return endpoint.equals(replicaEndpoint) && address >= base && address - base < size;
    }
  }

  private final String address; // host:port of the admin server; null: unchecked
  private final String own; // the holder's segment name
  private final Duration requestBound;
  private final HttpClient http; // one client: its connections are kept alive between checks
  private volatile Segment ownSegment; // read once, on the first check

  private LockPlacement(String address, String own, Duration requestBound) {
    this.address = address;
    this.own = own;
    this.requestBound = requestBound;
    this.http =
        address == null ? null : HttpClient.newBuilder().connectTimeout(requestBound).build();
  }

  /**
   * Checks lock records of the segment {@code own} at the admin server {@code metricsAddress}
   * ({@code host:port}); {@link #UNCHECKED} when that is null.
   */
  public static LockPlacement onMaster(String metricsAddress, String own) {
    return metricsAddress == null
        ? UNCHECKED
        : new LockPlacement(metricsAddress, own, REQUEST_BOUND);
  }

  /** Whether acquisitions pay for a check. */
  public boolean checks() {
    return address != null;
  }

  /**
   * Null when every replica of {@code lockKey} lives in the holder's own segment (or nothing is
   * checked); else why the record may not count as held: the segment it landed in, or why its place
   * could not be learnt. Never throws: a lock whose place is unknown is not held.
   */
  String misplaced(String lockKey, Deadline deadline) {
    if (address == null) {
      return null;
    }
    try {
      return elsewhere(lockKey, deadline);
    } catch (PlacementUnknown e) {
      return "its placement could not be checked: " + e.getMessage();
    }
  }

  private String elsewhere(String lockKey, Deadline deadline) {
    if (!SENDABLE.matcher(lockKey).matches()) {
      throw new PlacementUnknown(
          "the key has characters the master's /query_key cannot be sent unescaped");
    }
    Segment mine = ownSegment(deadline);
    Answer answer = get("/query_key?key=" + lockKey, deadline);
    if (answer.status() == 404) {
      throw new PlacementUnknown(
          "the master no longer lists " + lockKey + " (" + answer.url() + ")");
    }
    JsonNode replicas = answer.json().path("data");
    if (answer.status() != 200 || !replicas.isArray() || replicas.isEmpty()) {
      throw new PlacementUnknown(answer.url() + " answered " + answer.describe());
    }
    for (JsonNode replica : replicas) {
      String endpoint = replica.path("transport_endpoint_").asText("");
      long at = replica.path("buffer_address_").asLong(-1);
      if (!mine.holds(endpoint, at)) {
        return "it landed in "
            + segmentOf(endpoint, at, deadline)
            + ", not in its holder's segment "
            + own
            + ": the holder's segment is full";
      }
    }
    return null;
  }

  private Segment ownSegment(Deadline deadline) {
    Segment known = ownSegment;
    if (known == null) {
      known = find(deadline, s -> s.name().equals(own));
      if (known == null) {
        throw new PlacementUnknown("the master does not list the holder's segment " + own);
      }
      ownSegment = known;
    }
    return known;
  }

  /** The name of the segment holding a replica, for the message. */
  private String segmentOf(String endpoint, long at, Deadline deadline) {
    try {
      Segment found = find(deadline, s -> s.holds(endpoint, at));
      if (found != null) {
        return "segment " + found.name();
      }
    } catch (PlacementUnknown e) {
      // named by its endpoint below
    }
    return endpoint.isEmpty()
        ? "a replica outside every memory segment"
        : "the segment at endpoint " + endpoint;
  }

  private Segment find(Deadline deadline, java.util.function.Predicate<Segment> which) {
    Answer answer = get("/get_segments_detail", deadline);
    if (answer.status() != 200) {
      throw new PlacementUnknown(answer.url() + " answered " + answer.describe());
    }
    for (JsonNode s : answer.json().path("segments")) {
      Segment segment =
          new Segment(
              s.path("segment_name").asText(""),
              s.path("te_endpoint").asText(""),
              address(s.path("base_address").asText("")),
              s.path("size_bytes").asLong(0));
      if (which.test(segment)) {
        return segment;
      }
    }
    return null;
  }

  /** {@code 0x7ff4…} as the master writes a base address; -1 when unreadable. */
  private static long address(String hex) {
    try {
      return hex.startsWith("0x") ? Long.parseUnsignedLong(hex.substring(2), 16) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private record Answer(String url, int status, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new PlacementUnknown(url + " answered no JSON: " + describe());
      }
    }

    String describe() {
      return "HTTP " + status + " " + (body.length() <= 200 ? body : body.substring(0, 200) + "…");
    }
  }

  private Answer get(String path, Deadline deadline) {
    String url = "http://" + address + path;
    long nanos = Math.min(requestBound.toNanos(), deadline.remainingNanos());
    if (nanos <= 0) {
      throw new PlacementUnknown("no time left to ask " + url);
    }
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofNanos(nanos)).build(),
              HttpResponse.BodyHandlers.ofString());
      return new Answer(url, response.statusCode(), response.body());
    } catch (IOException | IllegalArgumentException e) {
      throw new PlacementUnknown(url + " did not answer: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PlacementUnknown("interrupted asking " + url);
    }
  }

  /** Why a record's place is not known; becomes the refusal's reason. */
  private static final class PlacementUnknown extends RuntimeException {
    PlacementUnknown(String message) {
      super(message, null, false, false);
    }
  }

  @Override
  public String toString() {
    return address == null ? "placement unchecked" : "placement checked at http://" + address;
  }
}
