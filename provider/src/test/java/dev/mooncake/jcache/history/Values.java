package dev.mooncake.jcache.history;

/**
 * The values the history tests write: every one unique and naming where it belongs, so a read can
 * tell a value of another key (or tenant, or cache) from its own, and the checker can tell which
 * segment holds it.
 *
 * <p>A value's <em>id</em> is {@code <owner>/<segment>/<thread>/<sequence>}: the owner is the key
 * ({@code k3}) in the history tests and {@code <tenant>/<cache>/<key>} in the tenant test, the
 * segment the writing JVM's id ({@code p1}; embedded-mode writes land in the writer's own segment),
 * the sequence zero-padded. What is stored is the id, {@code #}, then the id repeated up to a fixed
 * length: every stored value has one size (so Mooncake reuses freed memory for the next put), and a
 * value whose filler does not repeat its own id was torn between two writes.
 */
final class Values {
  private static final char END = '#';

  private Values() {}

  /** The id of the {@code sequence}th value that {@code segment}'s thread writes for owner. */
  static String id(String owner, String segment, int thread, long sequence) {
    return owner + "/" + segment + "/" + thread + "/" + String.format("%07d", sequence);
  }

  /** The stored form of id: id, '#', filler, {@code size} characters in all (at least the id's). */
  static String stored(String id, int size) {
    StringBuilder value = new StringBuilder(Math.max(size, id.length() + 1));
    value.append(id).append(END);
    while (value.length() < size) {
      value.append(id, 0, Math.min(id.length(), size - value.length()));
    }
    return value.toString();
  }

  /** What a read returned: its id, and whether the rest is the filler of that id. */
  record Read(String id, boolean intact) {}

  static Read read(String stored) {
    int end = stored.indexOf(END);
    if (end <= 0) {
      return new Read(clip(stored), false);
    }
    String id = stored.substring(0, end);
    return new Read(id, stored.equals(stored(id, stored.length())));
  }

  /** At most 80 characters of a value that is not one of ours, for messages and logs. */
  static String clip(String text) {
    String flat = text.replaceAll("\\s", "_");
    return flat.length() <= 80 ? flat : flat.substring(0, 80) + "…";
  }

  /** The owner an id names ({@code k3}, {@code alpha/c0/k3}), or null when it is not an id. */
  static String ownerOf(String id) {
    int cut = id.length();
    for (int i = 0; i < 3; i++) {
      cut = id.lastIndexOf('/', cut - 1);
      if (cut <= 0) {
        return null;
      }
    }
    return id.substring(0, cut);
  }

  /** The segment (writer JVM) an id names, or null when it is not an id. */
  static String segmentOf(String id) {
    String[] parts = id.split("/");
    return parts.length >= 4 ? parts[parts.length - 3] : null;
  }
}
