package dev.mooncake.jcache.real;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.cache.Cache;

/**
 * The second load JVM of {@link RealDeadlinesTest}: {@code <config> <threads> <keys>} runs a {@link
 * MixedLoad} on cache "load", prints READY, and on a line "stop" prints one {@link
 * MixedLoad.OpStats#line} per operation type, {@code STALL <ms>} (its longest {@link Stalls
 * scheduling stall}), then DONE.
 */
public final class RealDeadlinesPeer {
  public static void main(String[] args) throws Exception {
    Cache<String, String> cache = RealMooncake.stringCache(Path.of(args[0]), "load");
    Stalls stalls = new Stalls().start();
    MixedLoad load =
        new MixedLoad(cache, Integer.parseInt(args[1]), "peer-load", Integer.parseInt(args[2]))
            .start();
    System.out.println("READY");
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null && !line.equals("stop")) {
      // only "stop" is understood
    }
    load.stop().forEach((op, stats) -> System.out.println(stats.line(op)));
    System.out.println("STALL " + stalls.stop());
    System.out.println("CALLS " + load.calls());
    System.out.println("DONE");
    System.out.flush();
    System.exit(0); // the store's close may wait for calls still inside a stopped master
  }

  private RealDeadlinesPeer() {}
}
