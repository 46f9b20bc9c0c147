package io.github.kernelarchive.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bundles as they come from a repository: good ones unpack; damaged or hostile ones are refused, naming the file. */
class BundleReaderTest {
  private static final FileTime TIME = FileTime.from(Instant.parse("2000-01-01T00:00:00Z"));
  @TempDir Path dir;

  private static byte[] metadata(int format) {
    String text = new String(new BundleMetadata(1, "linux-x86_64", "k", "libk.so", "K_1", List.of("k_*"),
        List.of("libk-host.a"), "", false, "static", List.of("libc.so.6"), List.of(), "").toBytes(), StandardCharsets.ISO_8859_1);
    return text.replace("format=1", "format=" + format).getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void aWrittenBundleUnpacksWithItsMetadata() throws Exception {
    Path bundle = dir.resolve("k.kernel");
    Path header = Files.writeString(dir.resolve("k.h"), "int k_api(void);\n");
    BundleWriter.write(bundle, List.of(BundleWriter.Entry.bytes(BundleMetadata.FILE, metadata(1)),
        BundleWriter.Entry.file("include/k/k.h", header)), TIME);
    BundleMetadata read = BundleReader.unpack(bundle, dir.resolve("out"));
    assertEquals("libk.so", read.soname());
    assertEquals(List.of("k_*"), read.exports());
    assertEquals("int k_api(void);\n", Files.readString(dir.resolve("out/include/k/k.h")));
  }

  @Test
  void aTruncatedBundleIsRefusedNamingIt() throws Exception {
    Path bundle = dir.resolve("k.kernel");
    BundleWriter.write(bundle, List.of(BundleWriter.Entry.bytes(BundleMetadata.FILE, metadata(1)),
        BundleWriter.Entry.bytes("lib/libk-host.a", new byte[100_000])), TIME);
    byte[] bytes = Files.readAllBytes(bundle);
    Files.write(bundle, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    String message = assertThrows(BundleException.class, () -> BundleReader.unpack(bundle, dir.resolve("out"))).getMessage();
    assertTrue(message.startsWith(bundle + " cannot be read: it is truncated or corrupt"), message);
    assertFalse(Files.exists(dir.resolve("out")), "nothing half-unpacked is left where a build would look");
  }

  @Test
  void anUnknownMetadataFormatIsRefused() throws Exception {
    Path bundle = dir.resolve("k.kernel");
    BundleWriter.write(bundle, List.of(BundleWriter.Entry.bytes(BundleMetadata.FILE, metadata(7))), TIME);
    String message = assertThrows(BundleException.class, () -> BundleReader.unpack(bundle, dir.resolve("out"))).getMessage();
    assertTrue(message.contains("has metadata format 7; this plugin reads format 1"), message);
  }

  @Test
  void entriesThatEscapeTheirFolderAreRefused() throws Exception {
    assertRefused(tar -> file(tar, "../evil.h"), "climbs out of the bundle");
    assertRefused(tar -> file(tar, "/etc/evil.h"), "has an absolute name");
    assertRefused(tar -> link(tar, "include/evil.h", "../../../etc/passwd"), "is a link to ../../../etc/passwd, outside the bundle");
    assertFalse(Files.exists(dir.resolve("evil.h")) || Files.exists(dir.resolve("out")));
  }

  private interface Content {
    void write(TarArchiveOutputStream tar) throws Exception;
  }

  private void assertRefused(Content hostile, String expected) throws Exception {
    Path bundle = dir.resolve("hostile.kernel");
    try (OutputStream out = Files.newOutputStream(bundle);
        TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(out))) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      file(tar, BundleMetadata.FILE, metadata(1));
      hostile.write(tar);
    }
    String message = assertThrows(BundleException.class, () -> BundleReader.unpack(bundle, dir.resolve("out"))).getMessage();
    assertTrue(message.startsWith(bundle.toString()) && message.contains(expected), message);
  }

  private static void file(TarArchiveOutputStream tar, String name) throws Exception {
    file(tar, name, "int evil;\n".getBytes(StandardCharsets.UTF_8));
  }

  private static void file(TarArchiveOutputStream tar, String name, byte[] content) throws Exception {
    // The name goes into the header as given: Commons Compress would strip a leading '/' or '../' if asked through the constructor.
    TarArchiveEntry entry = new TarArchiveEntry(name, true);
    entry.setSize(content.length);
    tar.putArchiveEntry(entry);
    tar.write(content);
    tar.closeArchiveEntry();
  }

  private static void link(TarArchiveOutputStream tar, String name, String target) throws Exception {
    TarArchiveEntry entry = new TarArchiveEntry(name, TarArchiveEntry.LF_SYMLINK, true);
    entry.setLinkName(target);
    tar.putArchiveEntry(entry);
    tar.closeArchiveEntry();
  }
}
