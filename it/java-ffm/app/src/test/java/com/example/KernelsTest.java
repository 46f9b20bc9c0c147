package com.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.kernels.Kernels;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
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
  void passesAndReturnsStructsAndUnionsByValue() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment a = Kernels.KnVec2.allocate(arena);
      Kernels.KnVec2.x(a, 1f);
      Kernels.KnVec2.y(a, 2f);
      MemorySegment b = Kernels.KnVec2.allocate(arena);
      Kernels.KnVec2.x(b, 10f);
      Kernels.KnVec2.y(b, 20f);
      MemorySegment sum = Kernels.kn_add(arena, a, b);
      assertEquals(11f, Kernels.KnVec2.x(sum));
      assertEquals(22f, Kernels.KnVec2.y(sum));

      // Returned by value, with a nested struct and an array; then passed back by pointer.
      MemorySegment poly = Kernels.kn_poly_make(arena, 0.5f);
      assertEquals(4, Kernels.KnPoly.count(poly));
      assertEquals(2f, Kernels.KnVec2.y(Kernels.KnPoly.origin(poly)));
      assertArrayEquals(new float[] {0.5f, 0.5f, 0.5f, 0.5f}, Kernels.KnPoly.weights(poly).toArray(ValueLayout.JAVA_FLOAT));
      Kernels.KnPoly.weights(poly, 3, 2f);
      assertEquals(3f + 0.5f * (1 + 2 + 3) + 2f * 4, Kernels.kn_poly_weigh(poly));

      MemorySegment number = Kernels.KnNumber.allocate(arena);
      Kernels.KnNumber.d(number, 2.5);
      assertEquals(2.5, Kernels.kn_number_value(number, 1));
      Kernels.KnNumber.i(number, 7);
      assertEquals(7.0, Kernels.kn_number_value(number, 0));

      // The bit-field is not bound; the field after it is, at its own offset.
      MemorySegment flags = Kernels.KnFlags.allocate(arena);
      flags.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
      Kernels.KnFlags.level(flags, 9);
      assertEquals(9, Kernels.kn_flags_level(flags));
    }
  }

  @Test
  void callsAPrintfStyleFunctionWithVariableArguments() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(64);
      int written = Kernels.kn_format(out, 64L, arena.allocateFrom("%s has %d kernels at %.1f%%"),
          new MemoryLayout[] {ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_DOUBLE},
          arena.allocateFrom("libkernels"), 12, 99.5);
      assertEquals("libkernels has 12 kernels at 99.5%", out.getString(0));
      assertEquals(34, written);
      assertThrows(IllegalArgumentException.class, () -> Kernels.kn_format(out, 64L, arena.allocateFrom("%d"),
          new MemoryLayout[] {ValueLayout.JAVA_INT}));
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
