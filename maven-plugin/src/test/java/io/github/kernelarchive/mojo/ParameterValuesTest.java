package io.github.kernelarchive.mojo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.kernelarchive.link.CudaRuntime;
import org.apache.maven.plugin.MojoFailureException;
import org.junit.jupiter.api.Test;

/** Parameter values as users write them, and the errors for those that are not values. */
class ParameterValuesTest {
  @Test
  void cacheSizesTakeBinaryUnits() throws Exception {
    assertEquals(500L, CacheSize.parse("500"));
    assertEquals(10L << 30, CacheSize.parse("10G"));
    assertEquals(3L << 20, CacheSize.parse(" 3mb "));
    assertEquals(2L << 40, CacheSize.parse("2TiB"));
  }

  @Test
  void aCacheSizeThatIsNoSizeNamesTheParameter() {
    for (String bad : new String[] {"", "ten", "-1G", "9999999999T"}) {
      String message = assertThrows(MojoFailureException.class, () -> CacheSize.parse(bad)).getMessage();
      assertEquals("kernel.cache.maxSize '" + bad + "' is not a size. Use bytes or a number with K, M, G or T, e.g."
          + " -Dkernel.cache.maxSize=20G.", message);
    }
  }

  @Test
  void choicesAreTheEnumsConstantsInLowerCase() throws Exception {
    assertEquals(CudaRuntime.STUB, Choice.of(CudaRuntime.class, "stub", "kernel.cuda.runtime"));
    assertEquals(DependencyConfig.Linkage.SHARED, Choice.of(DependencyConfig.Linkage.class, "shared", "<linkage>"));
    assertEquals("kernel.cuda.runtime is 'STATIC': use static, shared, stub.", assertThrows(MojoFailureException.class,
        () -> Choice.of(CudaRuntime.class, "STATIC", "kernel.cuda.runtime")).getMessage());
    assertEquals("<dependency> 'nvshmem' <linkage> is 'dynamic': use shared, stub.",
        assertThrows(MojoFailureException.class, () -> Choice.of(DependencyConfig.Linkage.class, "dynamic",
            "<dependency> 'nvshmem' <linkage>")).getMessage());
  }
}
