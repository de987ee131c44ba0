package dev.mooncake.jcache.internal.event;

/**
 * JCache's {@code unwrap} for a type that offers nothing beyond itself: the object when it is a
 * {@code clazz}, otherwise an {@link IllegalArgumentException} naming what could not be unwrapped
 * and to what. Shared by the entries, the events and the cache manager.
 */
public final class Unwrap {
  private Unwrap() {}

  /** {@code self} as a {@code clazz}; {@code what} names {@code self} in the failure. */
  public static <T> T as(Object self, Class<T> clazz, String what) {
    if (clazz.isInstance(self)) {
      return clazz.cast(self);
    }
    throw new IllegalArgumentException("cannot unwrap " + what + " to " + clazz.getName());
  }
}
