package dev.mooncake.jcache.nativebridge;

/**
 * Child JVM for {@link SignalsTest}: opens a client on the fake store (which behaves like
 * Mooncake's signal handling), registers a shutdown hook, says READY and waits for a signal.
 */
public final class SignalChild {
  private SignalChild() {}

  public static void main(String[] args) throws Exception {
    MooncakeLibrary library = MooncakeLibrary.open(FakeStore.library(), null);
    MooncakeClient client = MooncakeClient.create(library);
    int code =
        client.setup("127.0.0.1", "P2PHANDSHAKE", 1 << 20, 1 << 20, "tcp", "", "127.0.0.1:50051");
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("HOOK-RAN");
                  System.out.flush();
                }));
    System.out.println(
        "READY setup="
            + code
            + " signal_thread="
            + FakeStore.stat("signal_thread")
            + " sigint_handler="
            + FakeStore.stat("sigint_handler")
            + " restored=0x"
            + Long.toHexString(client.signalsRestored())
            + " "
            + SignalsTest.blockedSignals());
    System.out.flush();
    Thread.sleep(30_000);
    System.out.println("NO-SIGNAL");
    System.exit(3);
  }
}
