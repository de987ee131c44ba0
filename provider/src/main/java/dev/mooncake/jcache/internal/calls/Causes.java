package dev.mooncake.jcache.internal.calls;

import java.util.function.Function;

/**
 * What a wait on another thread's work throws when that work failed: the work's own unchecked
 * exception as it was thrown there, an {@link Error} as it is, anything else wrapped. One rule for
 * the lanes, the virtual-thread hand-off and the listener wait, so a caller sees the same exception
 * whichever thread ran its call.
 */
public final class Causes {
  private Causes() {}

  /**
   * The exception to throw for {@code cause}: itself when it is an {@code asIs}; throws it when it
   * is an {@link Error}; otherwise {@code wrap} of it.
   */
  public static <X extends RuntimeException> RuntimeException unwrapped(
      Throwable cause, Class<X> asIs, Function<Throwable, RuntimeException> wrap) {
    if (asIs.isInstance(cause)) {
      return asIs.cast(cause);
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return wrap.apply(cause);
  }
}
