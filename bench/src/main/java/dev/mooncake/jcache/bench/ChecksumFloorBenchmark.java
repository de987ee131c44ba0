package dev.mooncake.jcache.bench;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How little a payload-wide check can add to a read (docs/performance-features.md, "Integrity
 * checks"): the two checksum intrinsics over a value as a transfer leaves it, the copy into the
 * heap that a read does anyway, copy then CRC, and the CRC fused into that copy in chunks of each
 * size (summed from the heap copy while it is in L1, or from the transfer buffer before it is
 * copied). The read path uses the best of these ({@code Checksum.ofWhileCopying}). Run (no Mooncake
 * needed): {@code bench/run-integrity.sh} builds, then {@code java -cp "bench/target/classes:$(cat
 * bench/target/classpath.txt)" org.openjdk.jmh.Main ChecksumFloor}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 3,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class ChecksumFloorBenchmark {
  @Param({"1048576"})
  public int size;

  /** The fused forms' chunk: L1 is 32 KiB (48 KiB on some cores), L2 1 MiB. */
  @Param({"4096", "8192", "16384", "32768"})
  public int chunk;

  private ByteBuffer transfer;
  private byte[] out;

  @Setup
  public void fill() {
    byte[] bytes = new byte[size];
    new SplittableRandom(7).nextBytes(bytes);
    transfer = ByteBuffer.allocateDirect(size).put(bytes).flip();
    out = new byte[size];
  }

  @Benchmark
  public long crc32c() {
    CRC32C crc = new CRC32C();
    crc.update(transfer.duplicate());
    return crc.getValue();
  }

  @Benchmark
  public long crc32() {
    CRC32 crc = new CRC32();
    crc.update(transfer.duplicate());
    return crc.getValue();
  }

  @Benchmark
  public byte[] copy() {
    transfer.get(0, out, 0, size);
    return out;
  }

  @Benchmark
  public long copyThenCrc32c() {
    CRC32C crc = new CRC32C();
    crc.update(transfer.duplicate());
    transfer.get(0, out, 0, size);
    return crc.getValue() + out[0];
  }

  @Benchmark
  public long copyFusedWithCrc32c() {
    CRC32C crc = new CRC32C();
    for (int at = 0; at < size; at += chunk) {
      int length = Math.min(chunk, size - at);
      transfer.get(at, out, at, length);
      crc.update(out, at, length);
    }
    return crc.getValue();
  }

  @Benchmark
  public long crcFusedWithCopy() {
    CRC32C crc = new CRC32C();
    ByteBuffer source = transfer.duplicate();
    for (int at = 0; at < size; at += chunk) {
      int length = Math.min(chunk, size - at);
      crc.update(source.limit(at + length).position(at));
      transfer.get(at, out, at, length);
    }
    return crc.getValue();
  }
}
