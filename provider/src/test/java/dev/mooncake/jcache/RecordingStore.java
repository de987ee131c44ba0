package dev.mooncake.jcache;

import dev.mooncake.jcache.internal.backend.BufferPool;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.OwnSegment;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An ObjectStore decorator that records which thread made each call. It also claims a segment of
 * its own (its pinned puts are plain puts of the delegate), so that cluster locks can run on it.
 */
final class RecordingStore implements ObjectStore, OwnSegment {
  record Call(String operation, String thread, String key, Deadline deadline) {}

  private final ObjectStore delegate;
  private final boolean inProcess;
  final List<Call> calls = new CopyOnWriteArrayList<>();

  RecordingStore(ObjectStore delegate) {
    this(delegate, delegate.inProcess());
  }

  /** A recorder that claims to be in-process or not, whatever its delegate is. */
  RecordingStore(ObjectStore delegate, boolean inProcess) {
    this.delegate = delegate;
    this.inProcess = inProcess;
  }

  @Override
  public boolean inProcess() {
    return inProcess;
  }

  private void record(String operation, Deadline deadline) {
    record(operation, null, deadline);
  }

  private void record(String operation, String key, Deadline deadline) {
    calls.add(new Call(operation, Thread.currentThread().getName(), key, deadline));
  }

  /** The keys of every single put so far, in order. */
  List<String> putKeys() {
    return calls.stream().filter(c -> c.operation().equals("put")).map(Call::key).toList();
  }

  /** The thread of the last call of an operation. */
  String threadOf(String operation) {
    for (int i = calls.size() - 1; i >= 0; i--) {
      if (calls.get(i).operation().equals(operation)) {
        return calls.get(i).thread();
      }
    }
    throw new AssertionError("no " + operation + " call in " + calls);
  }

  @Override
  public int put(String key, ByteBuffer value, Deadline deadline) {
    record("put", key, deadline);
    return delegate.put(key, value, deadline);
  }

  @Override
  public String ownSegment() {
    return "127.0.0.1:1";
  }

  @Override
  public int putPinnedInOwnSegment(String key, ByteBuffer value, Deadline deadline) {
    record("putPinned", key, deadline);
    return delegate.put(key, value, deadline);
  }

  @Override
  public int[] batchPutPinnedInOwnSegment(String[] keys, ByteBuffer[] values, Deadline deadline) {
    record("batchPutPinned", keys[0], deadline);
    return delegate.batchPut(keys, values, deadline);
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
    record("batchPut", deadline);
    return delegate.batchPut(keys, values, deadline);
  }

  @Override
  public long getInto(String key, ByteBuffer destination, Deadline deadline) {
    record("getInto", key, deadline);
    return delegate.getInto(key, destination, deadline);
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations, Deadline deadline) {
    record("batchGetInto", keys.length == 0 ? null : keys[0], deadline);
    return delegate.batchGetInto(keys, destinations, deadline);
  }

  @Override
  public int isExist(String key, Deadline deadline) {
    record("isExist", deadline);
    return delegate.isExist(key, deadline);
  }

  @Override
  public int[] batchIsExist(String[] keys, Deadline deadline) {
    record("batchIsExist", deadline);
    return delegate.batchIsExist(keys, deadline);
  }

  @Override
  public long getSize(String key, Deadline deadline) {
    record("getSize", key, deadline);
    return delegate.getSize(key, deadline);
  }

  @Override
  public int remove(String key, boolean force, Deadline deadline) {
    record("remove", key, deadline);
    return delegate.remove(key, force, deadline);
  }

  @Override
  public long removeByRegex(String pattern, boolean force, Deadline deadline) {
    record("removeByRegex", deadline);
    return delegate.removeByRegex(pattern, force, deadline);
  }

  @Override
  public BufferPool buffers() {
    return delegate.buffers();
  }

  @Override
  public String describe() {
    return "recording " + delegate.describe();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
