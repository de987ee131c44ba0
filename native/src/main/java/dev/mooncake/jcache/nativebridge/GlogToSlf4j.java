package dev.mooncake.jcache.nativebridge;

import java.util.List;
import org.slf4j.Logger;

/**
 * Logs Mooncake's glog lines through SLF4J at their severity: I info, W warn, E and F error. Lines
 * known to be part of a healthy start are logged at debug ({@link #BENIGN}).
 */
final class GlogToSlf4j implements GlogTailer.Sink {
  /**
   * Messages (after glog's {@code file:line] }) that Mooncake logs as errors on healthy runs:
   * "Local segment descriptor not found" (a LOG(ERROR) of transfer_metadata.cpp, P2P handshake
   * mode) is printed on every healthy start (issue 15, Mooncake 3b5a594). When that lookup really
   * fails, the Mooncake call fails too and its error code reaches the caller. "User buffer too
   * small" (real_client.cpp) is get_into's answer to a buffer smaller than the value: the provider
   * reads with a buffer sized by the values seen so far and, on that answer, asks get_size and
   * reads again, so a healthy read of a larger value logs it (seen on 3b5a594 with 1 MiB values).
   * "Buffer too small for key" is batch_get_into's line for the same answer (-600 for that key,
   * checked before any byte moves; seen on 3b5a594): a batch read grows its buffer the same way.
   */
  static final List<String> BENIGN =
      List.of(
          "Local segment descriptor not found",
          "User buffer too small",
          "Buffer too small for key");

  private final Logger logger;

  GlogToSlf4j(Logger logger) {
    this.logger = logger;
  }

  static boolean benign(String text) {
    int end = text.indexOf("] ");
    String message = end < 0 ? text : text.substring(end + 2);
    for (String prefix : BENIGN) {
      if (message.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void line(char severity, String text) {
    if (benign(text)) {
      logger.debug("{}", text);
      return;
    }
    switch (severity) {
      case 'I' -> logger.info("{}", text);
      case 'W' -> logger.warn("{}", text);
      default -> logger.error("{}", text);
    }
  }
}
