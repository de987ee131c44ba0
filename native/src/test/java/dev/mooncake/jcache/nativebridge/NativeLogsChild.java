package dev.mooncake.jcache.nativebridge;

import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

/**
 * Child JVM for {@link NativeLogsTest}: applies the native log settings of its arguments ({@code
 * <level> <destination>}, none: the defaults), starts a client on the fake store in P2P handshake
 * mode (which logs like Mooncake: an I line and the benign E line), then a client whose setup fails
 * (a real E line), prints what was applied and the log variables a child process started with an
 * untouched environment sees ({@code env}), and exits (the shutdown hook forwards what is left).
 */
public final class NativeLogsChild {
  private NativeLogsChild() {}

  public static void main(String[] args) throws Exception {
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
    // environment() not touched: the child gets the live C environment, as Runtime.exec's does
    Process env = new ProcessBuilder("env").redirectErrorStream(true).start();
    String inherited =
        new String(env.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
            .lines()
            .filter(l -> l.startsWith("MC_LOG") || l.startsWith("GLOG_") || l.startsWith("MCJ_"))
            .sorted()
            .collect(Collectors.joining(" "));
    System.out.println("CHILD_ENV " + env.waitFor() + " " + inherited);
    System.out.println("PID " + ProcessHandle.current().pid());
    System.out.flush();
  }
}
