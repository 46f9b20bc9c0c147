package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import java.util.List;
import org.junit.jupiter.api.Test;

class GpuArchitecturesTest {

  @Test
  void torchStyleListsBecomeExplicitGencodes() throws Exception {
    assertEquals(List.of(
            "-gencode=arch=compute_80,code=sm_80",
            "-gencode=arch=compute_90a,code=sm_90a",
            "-gencode=arch=compute_100,code=[sm_100,compute_100]"),
        GpuArchitectures.nvccFlags("80;90a;100+PTX"));
    assertEquals(GpuArchitectures.nvccFlags("80;90a;100+PTX"), GpuArchitectures.nvccFlags("8.0 9.0a, 10.0+ptx"));
  }

  @Test
  void badCudaArchNamesTheProperty() {
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> GpuArchitectures.nvccFlags("80;sm_90"));
    assertTrue(e.getMessage().contains("'sm_90'") && e.getMessage().contains("kernel.cuda.archs"), e.getMessage());
  }

  @Test
  void hipTargets() throws Exception {
    assertEquals(List.of("--offload-arch=gfx90a", "--offload-arch=gfx942:xnack+"),
        GpuArchitectures.hipFlags("gfx90a;gfx942:xnack+"));
    assertTrue(GpuArchitectures.targetsAmd("gfx90a"));
    assertFalse(GpuArchitectures.targetsAmd(""));
    assertThrows(BuildFailureException.class, () -> GpuArchitectures.hipFlags("mi300"));
  }
}
