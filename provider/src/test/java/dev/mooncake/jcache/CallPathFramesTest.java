package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.ForwardingObjectStore;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.OwnSegment;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.connection.StoreConnection;
import dev.mooncake.jcache.internal.lock.LocalKeyLocks;
import dev.mooncake.jcache.internal.lock.cluster.ClusterLocking;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.processor.MutableEntry;
import org.junit.jupiter.api.Test;

/**
 * The call path from a JCache operation down to the store call, counted in provider frames
 * (docs/data-paths.md): a store that records the stack of each entry put and read counts the {@code
 * dev.mooncake.*} frames from the operation's {@code MooncakeCache} frame down to the frame that
 * calls the store. A blind put (eternal cache, no listener) reaches the store in 7 frames and 5
 * classes; the Mooncake backend adds 3 frames and 2 classes to the native call: 10 frames and 7
 * classes in all, within issue 41's 12 and 7 ({@code CallPathToNativeTest} measures those). These
 * bounds are tight, so that a layer added on the hot path shows here.
 */
class CallPathFramesTest {
  private static final int BLIND_PUT_MAX_FRAMES = 7;
  private static final int BLIND_PUT_MAX_CLASSES = 5;
  private static final int GET_MAX_FRAMES = 6;

  /** The provider frames between the operation and the store call, caller first. */
  record Path(List<String> frames) {
    Set<String> classes() {
      Set<String> classes = new LinkedHashSet<>();
      for (String frame : frames) {
        String type = frame.substring(0, frame.lastIndexOf('.'));
        int nested = type.indexOf('$');
        classes.add(nested < 0 ? type : type.substring(0, nested));
      }
      return classes;
    }

    @Override
    public String toString() {
      return frames.size()
          + " frames, "
          + classes().size()
          + " classes: "
          + String.join(" > ", frames);
    }
  }

  /**
   * Records the stack of the last entry put and entry read (not the locks' pinned puts and reads,
   * which the cluster locks make on their own key names).
   */
  static final class StackRecordingStore extends ForwardingObjectStore implements OwnSegment {
    private final String operation;
    volatile StackTraceElement[] lastPut;
    volatile StackTraceElement[] lastRead;

    StackRecordingStore(ObjectStore delegate, String operation) {
      super(delegate);
      this.operation = operation;
    }

    @Override
    public int put(String key, ByteBuffer value, Deadline deadline) {
      lastPut = Thread.currentThread().getStackTrace();
      return super.put(key, value, deadline);
    }

    @Override
    public long getInto(String key, ByteBuffer destination, Deadline deadline) {
      if (!key.startsWith("mcjlock/")) {
        lastRead = Thread.currentThread().getStackTrace();
      }
      return super.getInto(key, destination, deadline);
    }

    @Override
    public long[] batchGetInto(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
      for (String key : keys) {
        if (!key.startsWith("mcjlock/")) {
          lastRead = Thread.currentThread().getStackTrace();
        }
      }
      return super.batchGetInto(keys, destinations, deadline);
    }

    @Override
    public String ownSegment() {
      return "127.0.0.1:1";
    }

    @Override
    public int putPinnedInOwnSegment(String key, ByteBuffer value, Deadline deadline) {
      return super.put(key, value, deadline);
    }

    @Override
    public int[] batchPutPinnedInOwnSegment(String[] keys, ByteBuffer[] values, Deadline deadline) {
      return super.batchPut(keys, values, deadline);
    }

    /** The provider frames from {@code MooncakeCache.<operation>} down to the store call. */
    Path path(StackTraceElement[] stack) {
      assertNotNull(stack, "no store call recorded");
      List<String> frames = new ArrayList<>();
      // [0] getStackTrace, [1] this recorder: its caller is the provider frame that calls the store
      for (int i = 2; i < stack.length; i++) {
        StackTraceElement frame = stack[i];
        String name = frame.getClassName() + "." + frame.getMethodName();
        if (frame.getClassName().startsWith("dev.mooncake.")) {
          frames.add(0, name.substring("dev.mooncake.jcache.".length()));
        }
        if (frame.getClassName().equals(MooncakeCache.class.getName())
            && frame.getMethodName().equals(operation)) {
          return new Path(frames);
        }
      }
      throw new AssertionError("MooncakeCache." + operation + " is not on the stack");
    }
  }

  private static Path measure(String operation, boolean cluster, String what) throws Exception {
    try (JCacheFixture fixture = new JCacheFixture()) {
      StackRecordingStore store =
          new StackRecordingStore(
              InProcessStore.open(TestConfigs.inProcess(), fixture.ticker), operation);
      StoreConnection connection =
          StoreConnection.of(
              store,
              cluster
                  ? () -> ClusterLocking.locks(store, Duration.ofSeconds(5), Duration.ofSeconds(5))
                  : LocalKeyLocks::new);
      Cache<String, String> cache =
          fixture
              .manager(TestConfigs.inProcess(), connection)
              .createCache("frames", new MutableConfiguration<String, String>());
      cache.put("k", "1");
      store.lastPut = null;
      store.lastRead = null;
      switch (operation) {
        case "put" -> cache.put("k", "2");
        case "get" -> assertEquals("1", cache.get("k"));
        case "invoke" ->
            cache.invoke(
                "k",
                (MutableEntry<String, String> e, Object... args) -> {
                  e.setValue(e.getValue() + "+");
                  return null;
                });
        default -> throw new AssertionError(operation);
      }
      Path path = store.path(what.equals("put") ? store.lastPut : store.lastRead);
      System.out.println(operation + (cluster ? " (cluster) " : " ") + what + ": " + path);
      return path;
    }
  }

  @Test
  void blindPutReachesTheStoreWithinSevenFramesAndFiveClasses() throws Exception {
    Path path = measure("put", false, "put");
    assertTrue(path.frames().size() <= BLIND_PUT_MAX_FRAMES, "a blind put: " + path);
    assertTrue(path.classes().size() <= BLIND_PUT_MAX_CLASSES, "a blind put: " + path);
  }

  @Test
  void getAndLockedInvokeAreCounted() throws Exception {
    Path get = measure("get", false, "read");
    Path invoke = measure("invoke", true, "put");
    assertTrue(get.frames().size() <= GET_MAX_FRAMES, "a get: " + get);
    assertTrue(invoke.frames().size() > 0, "a locked invoke: " + invoke);
  }
}
