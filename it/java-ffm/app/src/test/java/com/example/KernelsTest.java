package com.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.kernels.Kernels;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** Every exported function of libkernels.so through the generated binding. */
class KernelsTest {
  @Test
  void reducesAViewPassedByPointer() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment data = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 1f, 2f, 3f, 4f);
      MemorySegment view = Kernels.KnView.allocate(arena);
      Kernels.KnView.data(view, data);
      Kernels.KnView.length(view, 4L);
      Kernels.KnView.scale(view, 2f);
      Kernels.KnView.how(view, Kernels.KN_SUM);
      assertEquals(20f, Kernels.kn_reduce_view(view));
      assertEquals(1, Kernels.KnView.checked(view), "the library wrote into the struct");
      Kernels.KnView.how(view, Kernels.KN_MAX);
      assertEquals(8f, Kernels.kn_reduce_view(view));
      Kernels.KnView.how(view, Kernels.KN_MEAN);
      assertEquals(5f, Kernels.kn_reduce_view(view));
      assertEquals(32, Kernels.KnView.LAYOUT.byteSize());
    }
  }

  @Test
  void callsTheOtherFunctions() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment x = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 1f, 2f, 3f);
      MemorySegment y = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 10f, 20f, 30f);
      assertEquals(3, Kernels.kn_axpy(2f, x, y, 3L));
      assertArrayEquals(new float[] {12f, 24f, 36f}, y.toArray(ValueLayout.JAVA_FLOAT));
      assertEquals(2L, Kernels.kn_count_above(y, 3L, 20.0));
      assertEquals("kernels 1.0", Kernels.kn_version().reinterpret(64).getString(0));
      MemorySegment out = arena.allocate(ValueLayout.JAVA_FLOAT, 4);
      Kernels.kn_fill(out, 4, 0.5f);
      assertArrayEquals(new float[] {0.5f, 0.5f, 0.5f, 0.5f}, out.toArray(ValueLayout.JAVA_FLOAT));
    }
    assertThrows(NoSuchMethodException.class, () -> Kernels.class.getMethod("kernels_private_helper", int.class),
        "not exported, not bound");
    System.out.println("FFM-OK " + System.getProperty("java.version"));
  }
}
