package io.github.kernelarchive.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.archive.MemberSymbols;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.pipeline.Commands;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Objects from the real gcc/g++, archived with the real ar. */
class DuplicateDefinitionsTest {
  @TempDir Path dir;

  private Path object(String name, String compiler, String source, String... flags) throws Exception {
    String extension = compiler.equals("c++") ? ".cpp" : ".c";
    Path src = Files.writeString(dir.resolve(name + extension), source);
    Path object = dir.resolve(name + ".o");
    List<String> argv = new ArrayList<>(List.of(compiler, "-c", "-O0", "-o", object.toString(), src.toString()));
    argv.addAll(List.of(flags));
    run(argv);
    return object;
  }

  private void run(List<String> argv) throws Exception {
    Commands.run(argv, dir);
  }

  @Test
  void everyDuplicateIsListedWithBothDefinersBeforeTheLink() throws Exception {
    Path host = object("a", "cc", "int shared_state = 1;\nint only_a(void) { return 0; }\n");
    List<Path> members = List.of(
        object("b", "cc", "int shared_state = 2;\n"),
        object("c", "cc", "int dup_fn(void) { return 1; }\n"),
        object("d", "cc", "int dup_fn(void) { return 2; }\n"),
        // Definitions that legitimately repeat: weak, C++ inline (COMDAT), tentative with -fcommon.
        object("e", "cc", "__attribute__((weak)) int weak_fn(void) { return 0; }\nint tentative;\n", "-fcommon"),
        object("f", "cc", "__attribute__((weak)) int weak_fn(void) { return 0; }\nint tentative;\n", "-fcommon"),
        object("g", "c++", "inline int inl() { return 1; }\nint use_g() { return inl(); }\n"),
        object("h", "c++", "inline int inl() { return 1; }\nint use_h() { return inl(); }\n"));
    Path archive = dir.resolve("libk.a");
    List<String> argv = new ArrayList<>(List.of("ar", "qc", archive.toString()));
    members.forEach(m -> argv.add(m.toString()));
    run(argv);

    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> DuplicateDefinitions.check(List.of(host), List.of(archive)));
    String message = e.getMessage();
    assertTrue(message.startsWith("2 symbol(s) defined more than once"), message);
    assertTrue(message.contains("function dup_fn defined in libk.a(c.o) and libk.a(d.o)"), message);
    assertTrue(message.contains("variable shared_state defined in a.o and libk.a(b.o)"), message);
    assertTrue(message.contains("or mark its functions 'inline' (or 'static')"), message);
    assertTrue(message.contains("#ifdef __CUDACC__"), message);
    assertFalse(message.contains("weak_fn") || message.contains("_Z3inlv") || message.contains("tentative"), message);

    // An archive built in this run is not read again: what inspection found of its members stands
    // in for it, and gives the same report (here the archive file is gone, so a read would fail).
    List<MemberSymbols> known = new ArrayList<>();
    for (Path member : members) {
      known.add(new MemberSymbols(member.getFileName().toString(),
          ElfObject.parse(ByteBuffer.wrap(Files.readAllBytes(member))).strongDefinitions()));
    }
    Files.delete(archive);
    String fromInspection = assertThrows(BuildFailureException.class,
        () -> DuplicateDefinitions.check(List.of(host), List.of(archive), Map.of(archive, known))).getMessage();
    assertTrue(fromInspection.startsWith("2 symbol(s) defined more than once"), fromInspection);
    assertTrue(fromInspection.contains("dup_fn defined in libk.a(c.o) and libk.a(d.o)"), fromInspection);
    assertTrue(fromInspection.contains("variable shared_state defined in a.o and libk.a(b.o)"), fromInspection);
  }

  @Test
  void distinctDefinitionsPass() throws Exception {
    DuplicateDefinitions.check(List.of(object("x", "cc", "int x(void) { return 1; }\n"),
        object("y", "cc", "int y(void) { return 2; }\n")), List.of());
  }
}
