package dev.mooncake.jcache.samples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import java.net.URI;
import org.junit.jupiter.api.Test;

/**
 * mooncake-cluster.json (the README's "point it at a Mooncake cluster" file) is a valid config and
 * declares the same caches as mooncake.json. Only parsed here: no cluster is contacted.
 */
class ClusterConfigTest {

  @Test
  void clusterConfigDiffersFromTheLocalOneOnlyInWhereTheStoreIs() {
    ClassLoader loader = getClass().getClassLoader();
    MooncakeConfig local = ConfigLoader.load(URI.create("classpath:mooncake.json"), loader);
    MooncakeConfig cluster =
        ConfigLoader.load(URI.create("classpath:mooncake-cluster.json"), loader);

    assertThat(local.backend()).isEqualTo(MooncakeConfig.Backend.IN_PROCESS);
    assertThat(cluster.backend()).isEqualTo(MooncakeConfig.Backend.MOONCAKE);
    assertThat(cluster.masterServerAddress()).isEqualTo("127.0.0.1:50051");
    assertThat(cluster.metadataServer()).isEqualTo("P2PHANDSHAKE");
    assertThat(cluster.caches()).isEqualTo(local.caches());
    assertThat(cluster.deserializationAllowList()).isEqualTo(local.deserializationAllowList());
    assertThat(cluster.tenantId()).isEqualTo(local.tenantId());
  }
}
