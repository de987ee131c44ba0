package dev.mooncake.jcache.real;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import javax.cache.Cache;

/**
 * The JVM a fault of {@link RealDeadlinesTest} happens to, on cache "load" of {@code <config>}.
 * Prints READY, then answers lines on stdin:
 *
 * <ul>
 *   <li>{@code fill <prefix> <n>}: puts {@code <prefix>0 … <prefix><n-1>} = {@code from-peer} (in
 *       its own segment when its config prefers it), then prints {@code FILLED}.
 *   <li>{@code hold <key> …}: one thread per key invokes an entry processor that prints {@code
 *       HOLDING <key>} and waits for "release": while it runs, the key's cluster lock is held (a
 *       processor runs under it). When the invoke returns it prints {@code INVOKED <key>
 *       <outcome>}.
 *   <li>{@code release}: lets the processors return.
 * </ul>
 */
public final class RealDeadlinesFaultPeer {
  private static final CountDownLatch RELEASE = new CountDownLatch(1);

  public static void main(String[] args) throws Exception {
    Cache<String, String> cache = RealMooncake.stringCache(Path.of(args[0]), "load");
    say("READY");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] words = line.split(" ");
      switch (words[0]) {
        case "fill" -> {
          for (int i = 0; i < Integer.parseInt(words[2]); i++) {
            cache.put(words[1] + i, "from-peer");
          }
          say("FILLED");
        }
        case "hold" -> {
          for (int i = 1; i < words.length; i++) {
            String key = words[i];
            Thread holder = new Thread(() -> hold(cache, key), "hold-" + key);
            holder.setDaemon(true);
            holder.start();
          }
        }
        case "release" -> RELEASE.countDown();
        default -> say("UNKNOWN " + line);
      }
    }
  }

  private static void hold(Cache<String, String> cache, String key) {
    String outcome;
    try {
      cache.invoke(
          key,
          (entry, args) -> {
            say("HOLDING " + key);
            try {
              RELEASE.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            entry.setValue("held");
            return null;
          });
      outcome = "ok";
    } catch (RuntimeException e) {
      // after a pause longer than lock_lease_ms the write is refused: expected, and reported
      outcome = e.getClass().getSimpleName() + ": " + MixedLoad.firstLine(e);
    }
    say("INVOKED " + key + " " + outcome);
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private RealDeadlinesFaultPeer() {}
}
