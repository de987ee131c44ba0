package dev.mooncake.jcache.real;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.cache.Cache;

/**
 * A second JVM for the real-Mooncake tests. {@code peer <config>}: answers {@code get k}, {@code
 * put k v}, {@code remove k} lines on stdin with {@code OK <value>}. {@code hold <config>}: opens
 * the store, prints READY and waits (for a signal). {@code exit <config>}: opens the store and
 * calls System.exit(3). Every mode prints HOOK-RAN from a shutdown hook.
 */
public final class RealMooncakePeer {
  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("HOOK-RAN")));
    Cache<String, String> cache = RealMooncake.stringCache(Path.of(args[1]), "shared");
    System.out.println("READY");
    System.out.flush();
    switch (mode) {
      case "hold" -> Thread.sleep(120_000);
      case "exit" -> System.exit(3);
      default -> serve(cache);
    }
  }

  private static void serve(Cache<String, String> cache) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] parts = line.split(" ", 3);
      String answer =
          switch (parts[0]) {
            case "get" -> String.valueOf(cache.get(parts[1]));
            case "put" -> {
              cache.put(parts[1], parts[2]);
              yield "done";
            }
            case "remove" -> String.valueOf(cache.remove(parts[1]));
            default -> "unknown command " + parts[0];
          };
      System.out.println("OK " + answer);
      System.out.flush();
    }
  }

  private RealMooncakePeer() {}
}
