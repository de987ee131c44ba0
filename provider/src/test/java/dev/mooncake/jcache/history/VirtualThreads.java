package dev.mooncake.jcache.history;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Virtual threads where the peer JVM has them (Java 21+; the build compiles for 17), looked up
 * once: the workload's odd threads are virtual so that their store calls go through the provider's
 * hand-off (docs/lanes.md, "Virtual threads"). {@link PeerProcess} starts peers on a Java 25 when
 * one is installed.
 */
final class VirtualThreads {
  private static final MethodHandle UNSTARTED = lookUp("ofVirtual");
  private static final MethodHandle IS_VIRTUAL = lookUp("isVirtual");

  private VirtualThreads() {}

  private static MethodHandle lookUp(String name) {
    try {
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      if (name.equals("isVirtual")) {
        return lookup.findVirtual(Thread.class, name, MethodType.methodType(boolean.class));
      }
      Class<?> builder = Class.forName("java.lang.Thread$Builder");
      MethodHandle of =
          lookup.findStatic(
              Thread.class,
              name,
              MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual")));
      MethodHandle unstarted =
          lookup.findVirtual(
              builder, "unstarted", MethodType.methodType(Thread.class, Runnable.class));
      return MethodHandles.collectArguments(
              unstarted, 0, of.asType(of.type().changeReturnType(builder)))
          .asType(MethodType.methodType(Thread.class, Runnable.class));
    } catch (ReflectiveOperationException e) {
      return null; // Java 17-20
    }
  }

  static boolean available() {
    return UNSTARTED != null;
  }

  /** A virtual thread, not started, named {@code name}. */
  static Thread unstarted(String name, Runnable run) {
    try {
      Thread thread = (Thread) UNSTARTED.invokeExact(run);
      thread.setName(name);
      return thread;
    } catch (Throwable e) {
      throw new IllegalStateException("cannot make a virtual thread", e);
    }
  }

  static boolean isVirtual(Thread thread) {
    try {
      return IS_VIRTUAL != null && (boolean) IS_VIRTUAL.invokeExact(thread);
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }
}
