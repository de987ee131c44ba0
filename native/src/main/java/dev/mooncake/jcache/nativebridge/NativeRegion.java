package dev.mooncake.jcache.nativebridge;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;

/**
 * One anonymous memory mapping outside the Java heap and outside {@code -XX:MaxDirectMemorySize},
 * handed out as direct {@link ByteBuffer} views (at most {@link Integer#MAX_VALUE} bytes each).
 *
 * <p>Lifetime: {@link #close()} (exactly once) refuses new views and registrations and gives the
 * pages back to the system at once; a view still held somewhere keeps pointing at valid (zeroed)
 * memory. The mapping itself is unmapped only when no view, slice or duplicate of a view is
 * reachable any more: the native side keeps weak references to the views and checks them, and a
 * {@link Cleaner} retries when a view is collected. So no Java code can ever touch unmapped memory
 * through this class. Closing while a client still has the region registered throws {@link
 * IllegalStateException}: close the client first. A closed region's handle throws {@link
 * ClosedHandleException}; a released one refuses views with an IllegalStateException.
 */
public final class NativeRegion implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  private final State state;
  private final long address;
  private final long size;

  /** Shared by the region and the cleaning actions; never references a view. */
  private static final class State {
    final long handle;
    boolean released; // guarded by this
    boolean freed; // guarded by this

    State(long handle) {
      this.handle = handle;
    }

    synchronized void tryFree() {
      if (released && !freed && regionFree(handle)) {
        freed = true;
      }
    }
  }

  private NativeRegion(long handle) {
    this.state = new State(handle);
    this.address = regionAddress(handle);
    this.size = regionSize(handle);
  }

  /** Maps {@code size} bytes; throws {@link NativeBridgeException} naming the size and errno. */
  public static NativeRegion allocate(long size) {
    MooncakeLibrary.load();
    return new NativeRegion(regionAllocate(size));
  }

  long nativeHandle() {
    synchronized (state) {
      if (state.released) {
        throw new ClosedHandleException("region is closed");
      }
      return state.handle;
    }
  }

  public long size() {
    return size;
  }

  /** The native address of the region's first byte. */
  public long address() {
    return address;
  }

  /** A direct buffer over {@code [offset, offset + length)} of the region. */
  public ByteBuffer view(long offset, int length) {
    ByteBuffer view = regionView(nativeHandle(), offset, length);
    CLEANER.register(view, state::tryFree);
    return view;
  }

  /** Whether {@code [address, address + length)} lies inside the region. */
  public boolean contains(long start, long length) {
    return start != 0 && length >= 0 && start >= address && start - address <= size - length;
  }

  /** Whether the direct buffer's whole capacity lies inside the region (false for heap ones). */
  public boolean contains(ByteBuffer buffer) {
    if (!buffer.isDirect()) {
      return false;
    }
    return contains(bufferAddress(buffer), buffer.capacity());
  }

  /** The native address of a direct buffer (its index 0), 0 for a heap buffer. */
  public static long addressOf(ByteBuffer buffer) {
    MooncakeLibrary.load();
    return bufferAddress(buffer);
  }

  /** Views handed out that are still reachable (0 once the region is freed). */
  public int liveViews() {
    synchronized (state) {
      return state.freed ? 0 : regionLiveViews(state.handle);
    }
  }

  public boolean isOpen() {
    synchronized (state) {
      return !state.released;
    }
  }

  /** Whether the mapping is gone (closed and no view reachable any more). */
  public boolean isFreed() {
    state.tryFree();
    synchronized (state) {
      return state.freed;
    }
  }

  @Override
  public void close() {
    synchronized (state) {
      if (state.released) {
        return;
      }
      regionRelease(state.handle);
      state.released = true;
    }
    state.tryFree();
  }

  @Override
  public String toString() {
    return "NativeRegion[" + size + " bytes at 0x" + Long.toHexString(address) + "]";
  }

  // Natives (mcj_region.c); package-private for the package's tests.

  static native long bufferAddress(ByteBuffer buffer);

  static native long regionAllocate(long size);

  static native ByteBuffer regionView(long region, long offset, int length);

  static native long regionAddress(long region);

  static native long regionSize(long region);

  /** Views handed out and still reachable. */
  static native int regionLiveViews(long region);

  static native void regionRelease(long region);

  static native boolean regionFree(long region);
}
