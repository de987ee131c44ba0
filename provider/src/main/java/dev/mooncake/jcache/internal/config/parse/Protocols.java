package dev.mooncake.jcache.internal.config.parse;

import java.util.List;

/**
 * The transport names Mooncake's transfer engine installs ({@code
 * MultiTransport::installTransport}). All but {@code tcp} and {@code rdma} need a Mooncake built
 * with the matching flag; a name the library was not built with fails at setup with Mooncake's own
 * message.
 */
public final class Protocols {
  static final String TCP = "tcp";
  static final String RDMA = "rdma";

  /** Known names, the common ones first. */
  public static final List<String> KNOWN =
      List.of(
          TCP,
          RDMA,
          "efa",
          "barex",
          "nvmeof",
          "nvlink",
          "nvlink_intra",
          "hip",
          "cxl",
          "ascend",
          "ubshmem");

  private Protocols() {}

  /** Returns the name if known; else throws {@link IllegalArgumentException} listing the names. */
  static String validate(String protocol) {
    if (!KNOWN.contains(protocol)) {
      throw new IllegalArgumentException(
          "unknown protocol '"
              + protocol
              + "'; Mooncake knows "
              + String.join(", ", KNOWN)
              + " (lower case; all but tcp and rdma need a Mooncake built for them)");
    }
    return protocol;
  }

  /** Whether the protocol cannot run without a named device (LMCache: no silent fallback). */
  static boolean needsDevice(String protocol) {
    return RDMA.equals(protocol);
  }
}
