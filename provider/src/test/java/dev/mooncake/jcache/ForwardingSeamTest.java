package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.BufferPool;
import dev.mooncake.jcache.internal.backend.ForwardingBufferPool;
import dev.mooncake.jcache.internal.backend.ForwardingObjectStore;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.lock.ForwardingHeld;
import dev.mooncake.jcache.internal.lock.ForwardingKeyLocks;
import dev.mooncake.jcache.internal.lock.KeyLocks;
import dev.mooncake.jcache.internal.time.Deadline;
import dev.mooncake.jcache.internal.time.Ticker;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Every method of each seam interface is overridden by its forwarding class and arrives at the
 * delegate with its arguments, its answer handed back: a decorator built on the forwarding class
 * cannot drop a call. The lock seam's interfaces keep no default method; the store's overloads and
 * the buffer pool's outside any operation are final in their forwarding classes and arrive as the
 * deadline overload with {@link Deadline#none()}, so a decorator's override of that covers them.
 */
class ForwardingSeamTest {
  /** A deadline no method would invent, to see it arrive as it was sent. */
  private static final Deadline DEADLINE = Deadline.after(Duration.ofSeconds(9), Ticker.system());

  /** One call as the delegate saw it. */
  private record Call(Method method, Object[] args) {}

  @Test
  void forwardingKeyLocksForwardsEveryMethod() {
    assertNoDefaults(KeyLocks.class);
    assertForwardsEveryMethod(
        KeyLocks.class, ForwardingKeyLocks.class, d -> new ForwardingKeyLocks(d) {});
  }

  @Test
  void forwardingHeldForwardsEveryMethod() {
    assertNoDefaults(KeyLocks.Held.class);
    assertForwardsEveryMethod(
        KeyLocks.Held.class, ForwardingHeld.class, d -> new ForwardingHeld(d) {});
  }

  @Test
  void forwardingBufferPoolForwardsEveryMethod() {
    assertForwardsEveryMethod(
        BufferPool.class, ForwardingBufferPool.class, d -> new ForwardingBufferPool(d) {});
  }

  @Test
  void forwardingObjectStoreForwardsEveryMethod() {
    assertForwardsEveryMethod(
        ObjectStore.class, ForwardingObjectStore.class, d -> new ForwardingObjectStore(d) {});
  }

  private static void assertNoDefaults(Class<?> seam) {
    for (Method m : seam.getMethods()) {
      assertFalse(m.isDefault(), seam.getSimpleName() + "." + m.getName() + " has a default");
    }
  }

  private static <T> void assertForwardsEveryMethod(
      Class<T> seam, Class<? extends T> forwarding, Function<T, T> wrap) {
    int checked = 0;
    for (Method m : seam.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      String name =
          seam.getSimpleName() + "." + m.getName() + Arrays.toString(m.getParameterTypes());
      Method declared;
      try {
        declared = forwarding.getDeclaredMethod(m.getName(), m.getParameterTypes());
      } catch (NoSuchMethodException e) {
        throw new AssertionError(forwarding.getSimpleName() + " does not override " + name, e);
      }
      List<Call> calls = new ArrayList<>();
      T delegate = recording(seam, calls);
      Object[] args = arguments(m.getParameterTypes());
      Object answer = invoke(m, wrap.apply(delegate), args);

      assertEquals(1, calls.size(), name + " reached the delegate " + calls.size() + " times");
      Call call = calls.get(0);
      if (m.isDefault()) {
        // An overload outside any operation: final, through the deadline overload.
        assertTrue(Modifier.isFinal(declared.getModifiers()), name + " is not final");
        assertEquals(m.getName(), call.method().getName(), name);
        assertEquals(args.length + 1, call.args().length, name + " did not add the deadline");
        assertSame(Deadline.none(), call.args()[args.length], name);
      } else {
        assertEquals(m.getName(), call.method().getName(), name + " arrived as another method");
        assertTrue(
            Arrays.equals(m.getParameterTypes(), call.method().getParameterTypes()),
            name + " arrived as another overload");
        assertEquals(args.length, call.args().length, name);
      }
      for (int i = 0; i < args.length; i++) {
        assertSameArgument(args[i], call.args()[i], name + " argument " + i);
      }
      if (m.getReturnType() != void.class) {
        assertSameArgument(sample(m.getReturnType()), answer, name + " answer");
      }
      checked++;
    }
    assertTrue(checked > 0, "no method of " + seam.getSimpleName() + " checked");
  }

  private static Object invoke(Method m, Object target, Object[] args) {
    try {
      return m.invoke(target, args);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(m.getName(), e);
    }
  }

  private static void assertSameArgument(Object expected, Object actual, String what) {
    if (expected instanceof Number || expected instanceof Boolean) {
      assertEquals(expected, actual, what); // boxed anew on each side
    } else {
      assertSame(expected, actual, what);
    }
  }

  /** A delegate that records each call and answers {@link #sample} of the return type. */
  private static <T> T recording(Class<T> seam, List<Call> calls) {
    return seam.cast(
        Proxy.newProxyInstance(
            seam.getClassLoader(),
            new Class<?>[] {seam},
            (proxy, method, args) -> {
              if (method.getDeclaringClass() == Object.class) {
                return method.getName().equals("equals") ? proxy == args[0] : 0;
              }
              calls.add(new Call(method, args == null ? new Object[0] : args));
              return sample(method.getReturnType());
            }));
  }

  private static final Object[] SAMPLES = {
    7,
    7L,
    Boolean.TRUE,
    "answer",
    new int[] {7},
    new long[] {7},
    List.of(),
    ByteBuffer.allocate(1),
    new KeyLocks.Memo()
  };

  /** One fixed answer per type, so that the one handed back can be recognised. */
  private static Object sample(Class<?> type) {
    if (type == void.class) {
      return null;
    }
    if (type == int.class) {
      return 7;
    }
    if (type == long.class) {
      return 7L;
    }
    if (type == boolean.class) {
      return Boolean.TRUE;
    }
    for (Object sample : SAMPLES) {
      if (type.isInstance(sample)) {
        return sample;
      }
    }
    if (type.isInterface()) {
      return SAMPLE_PROXIES.computeIfAbsent(type, t -> recording(t, new ArrayList<>()));
    }
    throw new AssertionError("no sample of " + type);
  }

  private static final java.util.Map<Class<?>, Object> SAMPLE_PROXIES =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Arguments of each type, fresh objects so that identity shows they were passed on. */
  private static Object[] arguments(Class<?>[] types) {
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      Class<?> t = types[i];
      if (t == int.class) {
        args[i] = 11 + i;
      } else if (t == long.class) {
        args[i] = 13L + i;
      } else if (t == boolean.class) {
        args[i] = i % 2 == 0;
      } else if (t == String.class) {
        args[i] = new String("key" + i);
      } else if (t == String[].class) {
        args[i] = new String[] {"a" + i, "b" + i};
      } else if (t == ByteBuffer.class) {
        args[i] = ByteBuffer.allocate(3);
      } else if (t == ByteBuffer[].class) {
        args[i] = new ByteBuffer[] {ByteBuffer.allocate(3)};
      } else if (t == Deadline.class) {
        args[i] = DEADLINE;
      } else if (t.isInterface()) {
        args[i] = recording(t, new ArrayList<>());
      } else {
        throw new AssertionError("no argument of " + t);
      }
    }
    return args;
  }
}
