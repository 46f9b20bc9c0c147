package io.github.kernelarchive.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.kernelarchive.ar.ArFormatException;
import io.github.kernelarchive.ar.ArMember;
import io.github.kernelarchive.ar.ArReader;
import io.github.kernelarchive.cache.ContentManifest;
import io.github.kernelarchive.cache.Manifest;
import io.github.kernelarchive.compile.DepfileParser;
import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The binary and text readers face files written by other tools and other machines (the cache,
 * the remote tier). Each may return, or throw its own format exception; anything else (another
 * exception, a hang, an allocation sized by a length field) is a finding. In a normal test run
 * these replay the committed corpus under src/test/resources (regression mode); with
 * {@code JAZZER_FUZZ=1} one target is fuzzed: see docs/reliability.md.
 */
class ReadersFuzzTest {
  private static final Path SCRATCH;

  static {
    try {
      SCRATCH = Files.createTempFile("kernel-archive-fuzz", ".bin");
      SCRATCH.toFile().deleteOnExit();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static FileChannel channelOf(byte[] data) throws IOException {
    Files.write(SCRATCH, data);
    return FileChannel.open(SCRATCH, StandardOpenOption.READ);
  }

  @FuzzTest(maxDuration = "10m")
  void arReader(byte[] data) throws IOException {
    try (FileChannel channel = channelOf(data)) {
      ArReader.Contents contents = ArReader.read(channel);
      if (contents.index() != null) { // documented: null when the archive has no index
        ArReader.symbolsByMember(contents.index());
      }
      for (ArMember member : contents.members()) {
        ArReader.map(channel, member);
      }
    } catch (ArFormatException e) {
      // its own format exception: fine
    }
  }

  @FuzzTest(maxDuration = "10m")
  void thinBatchReader(byte[] data) throws IOException {
    try (FileChannel channel = channelOf(data)) {
      ArReader.readThin(channel).members().forEach(ArMember::name);
    } catch (ArFormatException e) {
      // fine
    }
  }

  @FuzzTest(maxDuration = "10m")
  void elfReader(byte[] data) {
    try {
      ElfObject elf = ElfObject.parse(ByteBuffer.wrap(data));
      elf.symbols();
      elf.dynamicSymbols();
      elf.dynamicEntries();
      ElfObject.buildId(ByteBuffer.wrap(data));
    } catch (ElfFormatException e) {
      // fine
    }
  }

  @FuzzTest(maxDuration = "10m")
  void manifestParsers(byte[] data) throws IOException {
    Files.write(SCRATCH, data);
    try {
      Manifest.read(SCRATCH);
    } catch (IOException e) {
      // a damaged manifest is an IOException naming the file
    }
    try {
      ContentManifest.read(SCRATCH);
    } catch (IOException e) {
      // fine
    }
  }

  @FuzzTest(maxDuration = "10m")
  void depfileParser(byte[] data) {
    DepfileParser.prerequisites(new String(data, java.nio.charset.StandardCharsets.UTF_8));
  }
}
