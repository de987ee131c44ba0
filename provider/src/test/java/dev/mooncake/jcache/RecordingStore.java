package dev.mooncake.jcache;

import dev.mooncake.jcache.backend.BufferPool;
import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.backend.OwnSegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An ObjectStore decorator that records which thread made each call. It also claims a segment of
 * its own (its pinned puts are plain puts of the delegate), so that cluster locks can run on it.
 */
final class RecordingStore implements ObjectStore, OwnSegment {
  record Call(String operation, String thread, String key) {}

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

  private void record(String operation) {
    record(operation, null);
  }

  private void record(String operation, String key) {
    calls.add(new Call(operation, Thread.currentThread().getName(), key));
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
  public int put(String key, ByteBuffer value) {
    record("put", key);
    return delegate.put(key, value);
  }

  @Override
  public String ownSegment() {
    return "127.0.0.1:1";
  }

  @Override
  public int putPinnedInOwnSegment(String key, ByteBuffer value) {
    record("putPinned", key);
    return delegate.put(key, value);
  }

  @Override
  public int[] batchPutPinnedInOwnSegment(String[] keys, ByteBuffer[] values) {
    record("batchPutPinned", keys[0]);
    return delegate.batchPut(keys, values);
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values) {
    record("batchPut");
    return delegate.batchPut(keys, values);
  }

  @Override
  public long getInto(String key, ByteBuffer destination) {
    record("getInto", key);
    return delegate.getInto(key, destination);
  }

  @Override
  public long[] batchGetInto(String[] keys, ByteBuffer[] destinations) {
    record("batchGetInto", keys.length == 0 ? null : keys[0]);
    return delegate.batchGetInto(keys, destinations);
  }

  @Override
  public int isExist(String key) {
    record("isExist");
    return delegate.isExist(key);
  }

  @Override
  public int[] batchIsExist(String[] keys) {
    record("batchIsExist");
    return delegate.batchIsExist(keys);
  }

  @Override
  public long getSize(String key) {
    record("getSize", key);
    return delegate.getSize(key);
  }

  @Override
  public int remove(String key, boolean force) {
    record("remove", key);
    return delegate.remove(key, force);
  }

  @Override
  public long removeByRegex(String pattern, boolean force) {
    record("removeByRegex");
    return delegate.removeByRegex(pattern, force);
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
