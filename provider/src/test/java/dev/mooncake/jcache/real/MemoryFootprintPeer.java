package dev.mooncake.jcache.real;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;

/**
 * A fresh JVM for {@link MemoryFootprintTest}: {@code <config> <values>} prints this process's
 * memory ({@code /proc/self/status}) before opening a manager, after opening it, and after writing
 * and reading back {@code values} values of 1 MiB, one line per phase: {@code MEM <phase>
 * VmSize=<kB> VmRSS=<kB> VmLck=<kB> VmPin=<kB>}.
 */
public final class MemoryFootprintPeer {
  private static final String[] FIELDS = {"VmSize", "VmRSS", "VmLck", "VmPin"};

  private MemoryFootprintPeer() {}

  public static void main(String[] args) throws Exception {
    int values = Integer.parseInt(args[1]);
    print("before", status());
    CacheManager manager =
        Caching.getCachingProvider()
            .getCacheManager(Path.of(args[0]).toUri(), MemoryFootprintPeer.class.getClassLoader());
    Cache<Integer, byte[]> cache =
        manager.createCache(
            "memory",
            new MutableConfiguration<Integer, byte[]>().setTypes(Integer.class, byte[].class));
    print("open", status());
    for (int i = 0; i < values; i++) {
      byte[] value = new byte[1 << 20];
      Arrays.fill(value, (byte) i);
      cache.put(i, value);
    }
    for (int i = 0; i < values; i++) {
      byte[] read = cache.get(i);
      if (read == null
          || read.length != 1 << 20
          || read[0] != (byte) i
          || read[read.length - 1] != (byte) i) {
        throw new IllegalStateException("value " + i + " did not come back");
      }
    }
    print("data", status());
    manager.close();
  }

  /** The kB figures of FIELDS in /proc/self/status (0 for a field the kernel does not have). */
  static Map<String, Long> status() throws IOException {
    Map<String, Long> found = new LinkedHashMap<>();
    for (String field : FIELDS) {
      found.put(field, 0L);
    }
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      int colon = line.indexOf(':');
      if (colon > 0 && found.containsKey(line.substring(0, colon))) {
        String number = line.substring(colon + 1).trim().split("\\s+")[0];
        found.put(line.substring(0, colon), Long.parseLong(number));
      }
    }
    return found;
  }

  private static void print(String phase, Map<String, Long> status) {
    StringBuilder line = new StringBuilder("MEM ").append(phase);
    status.forEach((field, kb) -> line.append(' ').append(field).append('=').append(kb));
    System.out.println(line);
    System.out.flush();
  }
}
