package dev.mooncake.jcache.internal.calls;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import javax.cache.event.CacheEntryListenerException;
import org.junit.jupiter.api.Test;

class CausesTest {

  @Test
  void anExceptionOfTheTypeAskedForComesOutAsItWasThrown() {
    IllegalStateException cause = new IllegalStateException("closed");
    assertSame(cause, Causes.unwrapped(cause, RuntimeException.class, CompletionException::new));
  }

  @Test
  void anErrorIsThrownAsItIs() {
    OutOfMemoryError error = new OutOfMemoryError("direct");
    assertSame(
        error,
        assertThrows(
            OutOfMemoryError.class,
            () -> Causes.unwrapped(error, RuntimeException.class, CompletionException::new)));
  }

  @Test
  void anythingElseIsWrapped() {
    IOException checked = new IOException("reset");
    RuntimeException wrapped =
        Causes.unwrapped(checked, RuntimeException.class, CompletionException::new);
    assertSame(CompletionException.class, wrapped.getClass());
    assertSame(checked, wrapped.getCause());

    // an unchecked exception of another type than the one asked for is wrapped too
    IllegalStateException other = new IllegalStateException("listener");
    RuntimeException listenerFailure =
        Causes.unwrapped(
            other, CacheEntryListenerException.class, CacheEntryListenerException::new);
    assertSame(CacheEntryListenerException.class, listenerFailure.getClass());
    assertSame(other, listenerFailure.getCause());
  }
}
