package dev.mooncake.jcache.nativebridge;

import static dev.mooncake.jcache.nativebridge.MooncakeClient.key;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {

  @Test
  void oneClientSharedByThreadsAndClosedUnderLoad() throws Exception {
    MooncakeClient client = FakeStore.client(64 << 20);
    int threads = 8;
    CountDownLatch started = new CountDownLatch(threads);
    ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    AtomicLong calls = new AtomicLong();
    // closed once the threads are under way (a latch, not a sleep: under qemu-user, -P
    // aarch64-qemu, 300 ms were not enough for one call)
    CountDownLatch underLoad = new CountDownLatch(200);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread worker =
          new Thread(
              () -> {
                ByteBuffer buffer = ByteBuffer.allocateDirect(64);
                started.countDown();
                try {
                  for (int i = 0; ; i++) {
                    byte[] k = key("t" + id + "/" + (i % 50));
                    buffer.putLong(0, i);
                    int put = client.putFrom(k, buffer, 0, 8, null);
                    long got = client.getInto(k, buffer, 8, 8);
                    if (put != 0 || got != 8) {
                      throw new AssertionError("put " + put + " get " + got);
                    }
                    client.remove(k, true);
                    calls.incrementAndGet();
                    underLoad.countDown();
                  }
                } catch (IllegalStateException closed) {
                  // the expected end
                } catch (Throwable t1) {
                  unexpected.add(t1);
                }
              });
      worker.start();
      workers.add(worker);
    }
    started.await();
    boolean loaded = underLoad.await(60, TimeUnit.SECONDS);
    client.close();
    for (Thread worker : workers) {
      worker.join(10_000);
    }
    assertTrue(unexpected.isEmpty(), () -> unexpected.toString());
    assertTrue(loaded && calls.get() >= 200, "calls: " + calls.get());
  }
}
