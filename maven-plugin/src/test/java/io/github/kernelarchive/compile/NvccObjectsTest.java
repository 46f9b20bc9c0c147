package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nvcc's process id in its objects, and nothing else, made zeros. */
class NvccObjectsTest {
  @TempDir Path dir;

  @Test
  void onlyTheProcessIdOfTheTemporaryFileNameChanges() {
    byte[] bytes = "\0tmpxft_000048f9_00000000-6_k.compute_90a.cudafe1.cpp\0tmpxft_zz\0tmpxft_0000abcd".getBytes(
        StandardCharsets.US_ASCII);
    assertTrue(NvccObjects.normalize(bytes));
    assertEquals("\0tmpxft_00000000_00000000-6_k.compute_90a.cudafe1.cpp\0tmpxft_zz\0tmpxft_0000abcd",
        new String(bytes, StandardCharsets.US_ASCII), "a name cut short or not hex is left alone");
    assertFalse(NvccObjects.normalize(bytes), "already normal");
  }

  /** Two compiles of one source, by real nvcc: different objects, the same once normalized. */
  @Test
  void twoNvccCompilesOfOneSourceBecomeTheSameObject() throws Exception {
    Installed.assumeCompiler(Language.CUDA);
    String nvcc = new Toolchain(ToolchainConfig.defaults(), System.getenv()).compiler(Language.CUDA).orElseThrow()
        .command();
    Path source = Files.writeString(dir.resolve("k.cu"),
        "__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\nvoid launch(float *x) { k<<<1, 32>>>(x); }\n");
    for (String object : List.of("a.o", "b.o")) {
      Commands.run(List.of(nvcc, "-c", "-Xcompiler", "-fPIC", "-gencode", "arch=compute_80,code=sm_80", "-o",
          dir.resolve(object).toString(), source.toString()), dir);
    }
    byte[] a = Files.readAllBytes(dir.resolve("a.o"));
    byte[] b = Files.readAllBytes(dir.resolve("b.o"));
    assertFalse(java.util.Arrays.equals(a, b), "nvcc 13 names its temporary file after its process id");
    NvccObjects.normalize(dir.resolve("a.o"));
    NvccObjects.normalize(dir.resolve("b.o"));
    assertArrayEquals(Files.readAllBytes(dir.resolve("a.o")), Files.readAllBytes(dir.resolve("b.o")));
  }
}
