package io.github.kernelarchive.nativetest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which files are test programs, which are shared, and how programs are chosen by name. */
class TestProgramsTest {
  @TempDir
  Path dir;

  private void touch(String path) throws Exception {
    Files.createDirectories(dir.resolve(path).getParent());
    Files.writeString(dir.resolve(path), "int main(void) { return 0; }\n");
  }

  @Test
  void everySourceDirectlyInTheFolderIsAProgramAndSupportIsShared() throws Exception {
    for (String file : List.of("test_fwd.c", "test_bwd.cpp", "test_gpu.cu", "test_amd.hip", "README.md", "util.h",
        "support/check.c", "support/ref/reference.cpp", "extra/not_a_program.c")) {
      touch(file);
    }
    TestPrograms programs = TestPrograms.scan(dir);
    assertEquals(List.of("test_amd", "test_bwd", "test_fwd", "test_gpu"),
        programs.programs().stream().map(TestProgram::name).toList());
    assertEquals(List.of(Language.HIP, Language.CXX, Language.C, Language.CUDA),
        programs.programs().stream().map(p -> p.main().language()).toList());
    assertEquals(List.of(true, false, false, true), programs.programs().stream().map(TestProgram::gpu).toList());
    assertEquals(List.of("check.c", "ref/reference.cpp"),
        programs.support().stream().map(SourceFile::relativePath).toList());
    assertEquals(6, programs.sources().size());
    assertEquals(List.of(), TestPrograms.scan(dir.resolve("absent")).programs());
  }

  @Test
  void twoProgramsWithOneNameAreRefusedNamingBoth() throws Exception {
    touch("test_fwd.c");
    touch("test_fwd.cu");
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> TestPrograms.scan(dir));
    assertEquals("Test programs " + dir.resolve("test_fwd.c") + " and " + dir.resolve("test_fwd.cu")
        + " would both be named 'test_fwd'. Rename one of them.", e.getMessage());
  }

  @Test
  void aGlobSelectsProgramsAndOneThatMatchesNoneSaysWhichThereAre() throws Exception {
    for (String file : List.of("test_fwd.c", "test_bwd.c", "bench_fwd.c")) {
      touch(file);
    }
    TestPrograms programs = TestPrograms.scan(dir);
    assertEquals(List.of("test_bwd", "test_fwd"),
        programs.select("test_*", dir).stream().map(TestProgram::name).toList());
    assertEquals(List.of("bench_fwd"), programs.select("bench_fwd", dir).stream().map(TestProgram::name).toList());
    assertEquals(3, programs.select(null, dir).size());
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> programs.select("test_attn", dir));
    assertEquals("kernel.test=test_attn matches none of the test programs in " + dir
        + " (bench_fwd, test_bwd, test_fwd). Give a program name or a glob such as 'test_*'.", e.getMessage());
  }
}
