package io.github.kernelarchive.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.audit.SystemHeaderSymbols;
import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.util.ContentHashes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Objects compiled by the real g++: the memo answers for the contents it was written for, and only for them. */
class UniqueSymbolMemoTest {
  @TempDir Path dir;

  private static final String DIGITS = "_ZZNSt8__detail18__to_chars_10_implImEEvPcjT_E8__digits";

  private Path object(String source) throws Exception {
    Path src = Files.writeString(dir.resolve("api.cpp"), source);
    Path object = dir.resolve("api.o");
    Commands.run(List.of("c++", "-c", "-fPIC", "-O1", "-o", object.toString(), src.toString()), dir);
    return object;
  }

  @Test
  void rememberedForTheSameObjectsAndFoundAgainForOthers() throws Exception {
    Path api = object("#include <string>\nstd::string name(unsigned long x) { return std::to_string(x); }\n");
    Path memo = dir.resolve("link/libp.so.unique");
    List<String> found = UniqueSymbolMemo.of(List.of(api), new ContentHashes(), memo);
    assertEquals(SystemHeaderSymbols.uniqueIn(List.of(api)), found);
    assertTrue(found.contains(DIGITS), found.toString());

    // The memo is what answers for the same contents: a symbol put into it comes back.
    List<String> lines = new ArrayList<>(Files.readAllLines(memo));
    lines.add("_ZZ6markerE1m");
    Files.write(memo, lines);
    assertTrue(UniqueSymbolMemo.of(List.of(api), new ContentHashes(), memo).contains("_ZZ6markerE1m"));

    Path other = object("int plain(int x) { return x + 1; }\n");
    List<String> again = UniqueSymbolMemo.of(List.of(other), new ContentHashes(), memo);
    assertEquals(List.of(), again, "other contents: read from the object");
    assertEquals(1, Files.readAllLines(memo).size(), "and remembered anew: the key alone");
  }
}
