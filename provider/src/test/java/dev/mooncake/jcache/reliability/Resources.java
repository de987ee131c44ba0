package dev.mooncake.jcache.reliability;

import java.io.File;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** One sample of what a long run could leak: resident memory, direct memory, threads, fds. */
record Resources(long rssBytes, long directBytes, long directBuffers, int threads, int fds) {

  static Resources sample() {
    long direct = 0;
    long buffers = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        direct = pool.getMemoryUsed();
        buffers = pool.getCount();
      }
    }
    String[] fds = new File("/proc/self/fd").list();
    return new Resources(
        rss(),
        direct,
        buffers,
        ManagementFactory.getThreadMXBean().getThreadCount(),
        fds == null ? -1 : fds.length);
  }

  private static long rss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return -1;
  }

  @Override
  public String toString() {
    return String.format(
        "rss %d MB, direct %d MB in %d buffers, %d threads, %d fds",
        rssBytes >> 20, directBytes >> 20, directBuffers, threads, fds);
  }
}
