package dev.mooncake.jcache.internal.config.parse;

import java.util.regex.Pattern;

/**
 * A {@code host:port} pair as Mooncake takes it for {@code master_server_address} and the metadata
 * server: a host name, an IPv4 address or a bracketed IPv6 address, and a port 1-65535.
 */
record HostPort(String host, int port) {
  private static final Pattern HOST_NAME =
      Pattern.compile("[A-Za-z0-9_]([A-Za-z0-9._-]*[A-Za-z0-9_])?");
  private static final Pattern IPV6 = Pattern.compile("\\[[0-9A-Fa-f:.]+(%[A-Za-z0-9._-]+)?]");

  /** Parses {@code host:port}; throws {@link IllegalArgumentException} saying what is wrong. */
  static HostPort parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException(
          "'" + text + "' has no port (expected host:port, e.g. 127.0.0.1:50051)");
    }
    String host = text.substring(0, colon);
    String port = text.substring(colon + 1);
    if (host.isEmpty()) {
      throw new IllegalArgumentException("'" + text + "' has no host (expected host:port)");
    }
    if (!HOST_NAME.matcher(host).matches() && !IPV6.matcher(host).matches()) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' has an invalid host '"
              + host
              + "' (a host name, an IPv4 address, or an IPv6 address in brackets)");
    }
    return new HostPort(host, parsePort(port, text));
  }

  private static int parsePort(String port, String text) {
    if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException(
          "'" + text + "' has an invalid port '" + port + "' (1-65535)");
    }
    int value = Integer.parseInt(port);
    if (value < 1 || value > 65535) {
      throw new IllegalArgumentException("'" + text + "' has port " + value + ", outside 1-65535");
    }
    return value;
  }

  /** Whether the host is a loopback literal or {@code localhost}. */
  boolean isLoopback() {
    return isLoopbackHost(host);
  }

  static boolean isLoopbackHost(String host) {
    return host.equals("localhost")
        || host.startsWith("127.")
        || host.equals("[::1]")
        || host.equals("::1");
  }
}
