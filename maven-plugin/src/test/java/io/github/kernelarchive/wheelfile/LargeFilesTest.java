package io.github.kernelarchive.wheelfile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.kernelarchive.jarfile.JarWriter;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3 GB file (sparse: no disk is spent on it) packed into a wheel and into a jar by a JVM with a
 * 256 MB heap: writing, hashing for RECORD and the wheel's verification all stream.
 */
class LargeFilesTest {
  static final long SIZE = 3L << 30;

  /** Run in its own JVM: {@code Pack <folder>} writes {@code big.whl} and {@code big.jar} there. */
  public static final class Pack {
    public static void main(String[] args) throws Exception {
      Path dir = Path.of(args[0]);
      Path big = dir.resolve("big.h");
      try (RandomAccessFile file = new RandomAccessFile(big.toFile(), "rw")) {
        file.setLength(SIZE);
        file.seek(SIZE / 2);
        file.write("a byte or two in the middle".getBytes(StandardCharsets.UTF_8));
      }
      WheelWriter.write(dir.resolve("big.whl"), "big-1.0.dist-info", List.of(WheelEntry.file("big/include/big.h", big,
          false), WheelEntry.text("big-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")), FileTime.fromMillis(0));
      JarWriter.write(dir.resolve("big.jar"), List.of(JarWriter.Entry.of("META-INF/native/include/big.h", big, false)),
          FileTime.fromMillis(0), "test");
    }
  }

  @Test
  void aThreeGigabyteFilePacksUnderA256MegabyteHeap(@TempDir Path dir) throws Exception {
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-cp", System.getProperty("java.class.path"), Pack.class.getName(), dir.toString())
        .redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor(10, TimeUnit.MINUTES);
    assertEquals(0, process.exitValue(), output);
    for (String[] archive : List.of(new String[] {"big.whl", "big/include/big.h"},
        new String[] {"big.jar", "META-INF/native/include/big.h"})) {
      try (ZipFile zip = ZipFile.builder().setPath(dir.resolve(archive[0])).get()) {
        assertEquals(SIZE, zip.getEntry(archive[1]).getSize(), archive[0]);
      }
    }
    Files.delete(dir.resolve("big.h"));
  }
}
