package io.github.kernelarchive.toolchain;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.kernelarchive.pipeline.Commands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GNU @file quoting: the tools read back every argument exactly as written. */
class ResponseFileTest {
  @TempDir Path dir;

  @Test
  void quotesEveryArgumentAndEscapesOnlyWhereNeeded() {
    assertEquals("\"plain\"\n\"with space\"\n\"back\\\\slash\"\n\"a \\\"quote\\\"\"\n\"@at\"\n",
        ResponseFile.format(List.of("plain", "with space", "back\\slash", "a \"quote\"", "@at")));
  }

  @Test
  void arReadsOddPathsBackFromIt() throws Exception {
    List<String> names = List.of("with space.o", "back\\slash.o", "a \"quote\".o", "@at.o", "it's.o");
    List<String> arguments = new ArrayList<>();
    for (String name : names) {
      arguments.add(Files.writeString(dir.resolve(name), name).toString());
    }
    String rsp = ResponseFile.write(dir.resolve("members.rsp"), arguments);
    Commands.run(List.of("ar", "qcS", dir.resolve("odd.a").toString(), rsp), dir);
    assertEquals(names, Commands.run(List.of("ar", "t", dir.resolve("odd.a").toString()), dir).lines().toList());
  }
}
