package dev.mooncake.jcache.internal.management;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.JCacheMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Micrometer's {@link JCacheMetrics} (what Spring Boot binds JCache caches with) does not ask the
 * cache for its statistics: it builds the spec's object name itself, {@code
 * javax.cache:type=CacheStatistics,CacheManager=<URI with ':' made '.'>,Cache=<name>}, and reads
 * the attributes from every MBean server {@code MBeanServerFactory} knows, reporting 0 when it
 * finds none. Our registration must match it for the URIs users pass.
 */
class JCacheMetricsTest {
  private final MooncakeCachingProvider provider = new MooncakeCachingProvider();
  @TempDir Path dir;

  @AfterEach
  void close() {
    provider.close();
  }

  @Test
  void builtInUri() throws Exception {
    assertMicrometerCountsTraffic(URI.create("mooncake:in-process"));
  }

  @Test
  void fileUriWithASpaceInThePath() throws Exception {
    Path file = Files.createDirectories(dir.resolve("app config")).resolve("mooncake.json");
    Files.writeString(file, "{\"tenant_id\": \"metrics\"}");
    assertMicrometerCountsTraffic(file.toUri());
  }

  @Test
  void fileInsideAJarAsAnExecutableJarPassesIt() throws Exception {
    Path jar = dir.resolve("app.jar");
    try (OutputStream out = Files.newOutputStream(jar);
        ZipOutputStream zip = new ZipOutputStream(out)) {
      zip.putNextEntry(new ZipEntry("mooncake.json"));
      zip.write("{\"tenant_id\": \"metrics\"}".getBytes(StandardCharsets.UTF_8));
      zip.closeEntry();
    }
    assertMicrometerCountsTraffic(URI.create("jar:" + jar.toUri() + "!/mooncake.json"));
  }

  private void assertMicrometerCountsTraffic(URI uri) throws Exception {
    CacheManager manager = provider.getCacheManager(uri, getClass().getClassLoader());
    Cache<String, String> cache =
        manager.createCache(
            "metered",
            new MutableConfiguration<String, String>()
                .setTypes(String.class, String.class)
                .setStatisticsEnabled(true));
    // The name exactly as JCacheMetrics (Micrometer 1.x) builds it.
    ObjectName micrometersName =
        new ObjectName(
            "javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replace(':', '.')
                + ",Cache="
                + cache.getName());
    List<MBeanServer> servers = MBeanServerFactory.findMBeanServer(null);
    assertTrue(
        servers.stream().anyMatch(s -> s.isRegistered(micrometersName)),
        micrometersName + " is not registered in any MBean server Micrometer looks in");

    MeterRegistry registry = new SimpleMeterRegistry();
    JCacheMetrics.monitor(registry, cache);
    cache.get("a"); // miss
    cache.put("a", "1");
    cache.put("b", "2");
    cache.get("a"); // hit
    cache.get("b"); // hit
    cache.get("c"); // miss
    cache.remove("a");

    assertEquals(2.0, count(registry, "cache.gets", "result", "hit"));
    assertEquals(2.0, count(registry, "cache.gets", "result", "miss"));
    assertEquals(2.0, count(registry, "cache.puts"));
    assertEquals(
        1.0,
        registry
            .get("cache.removals")
            .tag("cache", "metered")
            .meter()
            .measure()
            .iterator()
            .next()
            .getValue());
  }

  private static double count(MeterRegistry registry, String name, String... tags) {
    return registry.get(name).tag("cache", "metered").tags(tags).functionCounter().count();
  }
}
