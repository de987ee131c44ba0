package dev.mooncake.jcache.internal.management;

import java.lang.management.ManagementFactory;
import javax.cache.CacheException;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** Registers a cache's MXBeans on the platform MBean server under the spec's object names. */
public final class JmxRegistration {

  /** The two beans the spec defines per cache. */
  public enum Type {
    CONFIGURATION("CacheConfiguration"),
    STATISTICS("CacheStatistics");

    private final String typeName;

    Type(String typeName) {
      this.typeName = typeName;
    }
  }

  private JmxRegistration() {}

  /** {@code javax.cache:type=CacheStatistics,CacheManager=<uri>,Cache=<name>}, made JMX-safe. */
  public static ObjectName objectName(String managerUri, String cacheName, Type type) {
    try {
      return new ObjectName(
          "javax.cache:type="
              + type.typeName
              + ",CacheManager="
              + safe(managerUri)
              + ",Cache="
              + safe(cacheName));
    } catch (JMException e) {
      throw new CacheException("invalid MBean name for cache " + cacheName, e);
    }
  }

  public static void register(Object bean, ObjectName name) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      if (!server.isRegistered(name)) {
        server.registerMBean(bean, name);
      }
    } catch (InstanceAlreadyExistsException e) {
      // Registered concurrently by the same cache: fine.
    } catch (JMException e) {
      throw new CacheException("cannot register MBean " + name, e);
    }
  }

  public static void unregister(ObjectName name) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      if (server.isRegistered(name)) {
        server.unregisterMBean(name);
      }
    } catch (InstanceNotFoundException e) {
      // Already gone.
    } catch (JMException e) {
      throw new CacheException("cannot unregister MBean " + name, e);
    }
  }

  private static String safe(String text) {
    return text == null ? "" : text.replaceAll(",|:|=|\n", ".");
  }
}
