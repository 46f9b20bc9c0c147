package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.github.kernelarchive.compile.CompileState.Dependency;
import io.github.kernelarchive.compile.CompileState.ObjectRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompileStateTest {
  @TempDir Path dir;

  /** A state loaded and changed in nothing is not written again; a record put or removed is. */
  @Test
  void onlyAChangedStateIsWritten() throws Exception {
    Path file = dir.resolve("state/compile.state");
    Path object = dir.resolve("obj/k.o");
    ObjectRecord record = new ObjectRecord("key1", 10, 1_000, List.of(new Dependency("/k.h", "h1")));
    CompileState first = CompileState.empty();
    first.put(object, record);
    first.save(file);
    FileTime old = FileTime.fromMillis(1_000_000_000_000L);
    Files.setLastModifiedTime(file, old);

    CompileState loaded = CompileState.load(file);
    loaded.put(object, new ObjectRecord("key1", 10, 1_000, List.of(new Dependency("/k.h", "h1"))));
    loaded.remove(dir.resolve("obj/never.o"));
    loaded.save(file);
    assertEquals(old, Files.getLastModifiedTime(file), "the same record again: nothing written");
    loaded.save(dir.resolve("elsewhere/compile.state"));
    assertEquals(record, CompileState.load(dir.resolve("elsewhere/compile.state")).get(object),
        "another file is written");

    loaded.put(object, new ObjectRecord("key2", 10, 1_000, List.of()));
    loaded.save(file);
    assertNotEquals(old, Files.getLastModifiedTime(file));
    assertEquals("key2", CompileState.load(file).get(object).key());

    Files.setLastModifiedTime(file, old);
    CompileState again = CompileState.load(file);
    again.remove(object);
    again.save(file);
    assertNotEquals(old, Files.getLastModifiedTime(file), "a removal is written");
    assertNull(CompileState.load(file).get(object));
  }
}
