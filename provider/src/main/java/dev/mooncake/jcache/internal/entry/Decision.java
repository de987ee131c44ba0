package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.expiry.ExpiryTimes;

/**
 * What an atomic step decides to do with its key's entry, given the live entry: keep it, write a
 * value with an expiry time, remove it, or rewrite it with a new expiry time (access expiry). An
 * optional result travels with the decision out of the step (an entry processor's return value, a
 * loaded value), so callers need no out-parameters. Made by the factories below.
 *
 * @param kind what to do
 * @param value the value to write ({@code WRITE}), else null
 * @param expireAt the expiry time to write ({@code WRITE}, {@code TOUCH})
 * @param result what {@link #returning} attached, or null
 */
public record Decision(Kind kind, Object value, long expireAt, Object result) {
  enum Kind {
    KEEP,
    WRITE,
    REMOVE,
    TOUCH
  }

  /** Leave the entry as it is. */
  public static final Decision KEEP = new Decision(Kind.KEEP, null, 0, null);

  /** Remove the entry (nothing happens when there is none). */
  public static final Decision REMOVE = new Decision(Kind.REMOVE, null, 0, null);

  /** Store {@code value} (replacing the live entry, if any) to expire at {@code expireAt}. */
  public static Decision write(Object value, long expireAt) {
    return new Decision(Kind.WRITE, value, expireAt, null);
  }

  /**
   * Give the live entry a new expiry time without changing its value; {@link
   * ExpiryTimes#UNCHANGED}, or the time it has, keeps it as it is.
   */
  public static Decision touch(long expireAt) {
    return expireAt == ExpiryTimes.UNCHANGED
        ? KEEP
        : new Decision(Kind.TOUCH, null, expireAt, null);
  }

  /** This decision, carrying {@code result} out of the step. */
  public Decision returning(Object result) {
    return new Decision(kind, value, expireAt, result);
  }

  @Override
  public String toString() {
    return kind + (kind == Kind.WRITE || kind == Kind.TOUCH ? "(expires " + expireAt + ")" : "");
  }
}
