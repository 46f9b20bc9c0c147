package io.github.kernelarchive.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.elf.ElfObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inspection keeps only small objects' bytes, reads larger ones through one reused buffer (mapping
 * only the largest), and notices a file rewritten after it.
 */
class ObjectInspectorTest {
  @TempDir Path dir;

  @Test
  void aLargeObjectIsNotKeptAndARewriteAfterInspectionIsNoticed() throws Exception {
    Path large = NativeObjects.compile(dir.resolve("large.o"),
        "const unsigned char table[65536] = { 1 };\nint large_kernel(void) { return table[0]; }\n");
    Path small = NativeObjects.compile(dir.resolve("small.o"), "int small_kernel(void) { return 1; }\n");
    ObjectInspector inspector = new ObjectInspector(ElfObject.hostMachine());
    AtomicLong budget = new AtomicLong(1 << 20);

    ObjectInspector.Scratch scratch = new ObjectInspector.Scratch();
    ObjectInspector.Inspection largeOne = inspector.inspect("large.o", large, "large", budget, scratch);
    ObjectInspector.Inspection smallOne = inspector.inspect("small.o", small, "small", budget, scratch);
    assertNull(largeOne.bytes(), "above the read limit the payload is not read");
    assertNotNull(smallOne.bytes(), "small objects are kept, to be written from memory");
    assertEquals(List.of("large_kernel", "table"), largeOne.symbols().stream().sorted().toList());
    assertTrue(largeOne.unchanged());

    byte[] bytes = Files.readAllBytes(large);
    bytes[bytes.length / 2] ^= 1;
    Files.write(large, bytes); // same size, new bytes
    Files.setLastModifiedTime(large, FileTime.fromMillis(largeOne.modified().toMillis() + 1000));
    assertFalse(largeOne.unchanged());
  }

  /** One buffer serves object after object, grown as needed; what it held before never leaks into a result. */
  @Test
  void theReusedBufferGivesEachObjectItsOwnSymbolsAndTheLargestAreMapped() throws Exception {
    Path wide = NativeObjects.compile(dir.resolve("wide.o"),
        "const unsigned char wide_table[200000] = { 1 };\nint wide_kernel(void) { return wide_table[0]; }\n");
    Path narrow = NativeObjects.compile(dir.resolve("narrow.o"),
        "const unsigned char narrow_table[20000] = { 2 };\nint narrow_kernel(void) { return narrow_table[0]; }\n");
    Path huge = NativeObjects.compile(dir.resolve("huge.o"),
        "const unsigned char huge_table[" + (ObjectInspector.REUSE_LIMIT + 1) + "] = { 3 };\n"
            + "int huge_kernel(void) { return huge_table[0]; }\n");
    ObjectInspector inspector = new ObjectInspector(ElfObject.hostMachine());
    AtomicLong budget = new AtomicLong(0); // nothing kept: every object goes through the buffer or a mapping
    ObjectInspector.Scratch scratch = new ObjectInspector.Scratch();

    assertEquals(List.of("wide_kernel", "wide_table"),
        inspector.inspect("wide.o", wide, "wide", budget, scratch).symbols().stream().sorted().toList());
    assertEquals(List.of("narrow_kernel", "narrow_table"),
        inspector.inspect("narrow.o", narrow, "narrow", budget, scratch).symbols().stream().sorted().toList());
    assertEquals(List.of("huge_kernel", "huge_table"),
        inspector.inspect("huge.o", huge, "huge", budget, scratch).symbols().stream().sorted().toList());
    assertEquals(List.of("wide_kernel", "wide_table"),
        inspector.inspect("wide.o", wide, "wide", budget, scratch).symbols().stream().sorted().toList());
  }
}
