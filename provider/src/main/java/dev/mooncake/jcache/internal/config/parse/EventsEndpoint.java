package dev.mooncake.jcache.internal.config.parse;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks an {@code events_endpoint}: the address the master's publisher binds ({@code
 * --kv_events_bind_endpoint}), seen from this JVM, as {@code tcp://host:port}.
 */
final class EventsEndpoint {
  private static final Pattern TCP =
      Pattern.compile("tcp://(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9.-]+):(\\d{1,5})");

  private EventsEndpoint() {}

  /** The endpoint, unchanged, or an {@link IllegalArgumentException} saying what is wrong. */
  static String check(String endpoint) {
    if (endpoint == null || endpoint.isBlank()) {
      throw new IllegalArgumentException(
          "is empty; give the master's"
              + " --kv_events_bind_endpoint as seen from here, e.g. \"tcp://127.0.0.1:5557\"");
    }
    Matcher m = TCP.matcher(endpoint);
    if (!m.matches()) {
      String hint =
          endpoint.startsWith("tcp://*") || endpoint.startsWith("tcp://0.0.0.0")
              ? " (that is a bind address; name the master's host)"
              : "";
      throw new IllegalArgumentException(
          "'" + endpoint + "' is not tcp://host:port" + hint + ", e.g. \"tcp://127.0.0.1:5557\"");
    }
    int port = Integer.parseInt(m.group(2));
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          "'" + endpoint + "': port " + port + " is out of range 1-65535");
    }
    if (m.group(1).equals("0.0.0.0")) {
      throw new IllegalArgumentException(
          "'" + endpoint + "': 0.0.0.0 is a bind address; name the master's host");
    }
    return endpoint;
  }
}
