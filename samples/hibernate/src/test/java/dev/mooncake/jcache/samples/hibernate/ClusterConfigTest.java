package dev.mooncake.jcache.samples.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import java.net.URI;
import org.junit.jupiter.api.Test;

/**
 * mooncake-hibernate-cluster.json (the README's "point it at a Mooncake cluster" file) is a valid
 * config and declares the same regions as mooncake-hibernate.json. Only parsed: no cluster is
 * contacted.
 */
class ClusterConfigTest {

  @Test
  void clusterConfigDiffersFromTheLocalOneOnlyInWhereTheStoreIs() {
    ClassLoader loader = getClass().getClassLoader();
    MooncakeConfig local =
        ConfigLoader.load(URI.create("classpath:mooncake-hibernate.json"), loader);
    MooncakeConfig cluster =
        ConfigLoader.load(URI.create("classpath:mooncake-hibernate-cluster.json"), loader);

    assertEquals(MooncakeConfig.Backend.IN_PROCESS, local.backend());
    assertEquals(MooncakeConfig.Backend.MOONCAKE, cluster.backend());
    assertEquals("127.0.0.1:50051", cluster.masterServerAddress());
    assertEquals("P2PHANDSHAKE", cluster.metadataServer());
    assertEquals(local.caches(), cluster.caches());
    assertEquals(local.deserializationAllowList(), cluster.deserializationAllowList());
    assertEquals(local.tenantId(), cluster.tenantId());
  }
}
