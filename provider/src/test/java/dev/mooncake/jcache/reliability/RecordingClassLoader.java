package dev.mooncake.jcache.reliability;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A fresh child class loader that records every class it is asked for. Given to a cache manager as
 * its class loader, it shows which classes deserialization resolved (loaded) through it: a fresh
 * loader has no classes of its own yet, so the JVM asks it for each one by name.
 */
final class RecordingClassLoader extends ClassLoader {
  private final List<String> requested = new CopyOnWriteArrayList<>();

  RecordingClassLoader(ClassLoader parent) {
    super(parent);
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    requested.add(name);
    return super.loadClass(name, resolve);
  }

  List<String> requested() {
    return List.copyOf(requested);
  }

  List<String> requestedUnder(String packagePrefix) {
    return requested.stream().filter(n -> n.startsWith(packagePrefix)).toList();
  }

  void forget() {
    requested.clear();
  }
}
