package dev.mooncake.jcache.nativebridge;

/**
 * Child JVM for {@link NativeLogsTest}: applies the native log settings of its arguments ({@code
 * <level> <destination>}, none: the defaults), starts a client on the fake store in P2P handshake
 * mode (which logs like Mooncake: an I line and the benign E line), then a client whose setup fails
 * (a real E line), prints what was applied and exits (the shutdown hook forwards what is left).
 */
public final class NativeLogsChild {
  private NativeLogsChild() {}

  public static void main(String[] args) {
    if (args.length == 2) {
      NativeLogs.configure(NativeLogs.Settings.of(args[0], args[1]));
    }
    MooncakeLibrary library = MooncakeLibrary.open(FakeStore.library(), null);
    try (MooncakeClient healthy = MooncakeClient.create(library)) {
      int code =
          healthy.setup(
              "127.0.0.1", "P2PHANDSHAKE", 1 << 20, 1 << 20, "tcp", "", "127.0.0.1:50051");
      FakeStore.control("fail_setup=-800");
      try (MooncakeClient failing = MooncakeClient.create(library)) {
        int failed =
            failing.setup("127.0.0.2", "P2PHANDSHAKE", 1 << 20, 1 << 20, "tcp", "", "127.0.0.1:1");
        System.out.println("SETUP " + code + " " + failed);
      }
    }
    NativeLogs.Applied applied = NativeLogs.applied();
    System.out.println("LEVEL " + applied.effectiveLevel());
    System.out.println("DIRECTORY " + applied.directory());
    System.out.println("FORWARDED " + applied.forwarded());
    System.out.println("SET " + String.join(" ", applied.setByUs()));
    String marker = NativeLogs.environment(NativeLogs.SET_BY);
    System.out.println("MARKER " + (marker == null ? null : marker.replace('\n', ' ')));
    System.out.println("PID " + ProcessHandle.current().pid());
    System.out.flush();
  }
}
