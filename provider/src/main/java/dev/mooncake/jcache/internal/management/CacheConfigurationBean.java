package dev.mooncake.jcache.internal.management;

import java.util.function.Supplier;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.management.CacheMXBean;

/** The cache's configuration as the spec's {@link CacheMXBean}; reads the live configuration. */
public final class CacheConfigurationBean implements CacheMXBean {
  private final Supplier<CompleteConfiguration<?, ?>> configuration;

  public CacheConfigurationBean(Supplier<CompleteConfiguration<?, ?>> configuration) {
    this.configuration = configuration;
  }

  @Override
  public String getKeyType() {
    return configuration.get().getKeyType().getName();
  }

  @Override
  public String getValueType() {
    return configuration.get().getValueType().getName();
  }

  @Override
  public boolean isReadThrough() {
    return configuration.get().isReadThrough();
  }

  @Override
  public boolean isWriteThrough() {
    return configuration.get().isWriteThrough();
  }

  @Override
  public boolean isStoreByValue() {
    return configuration.get().isStoreByValue();
  }

  @Override
  public boolean isStatisticsEnabled() {
    return configuration.get().isStatisticsEnabled();
  }

  @Override
  public boolean isManagementEnabled() {
    return configuration.get().isManagementEnabled();
  }
}
