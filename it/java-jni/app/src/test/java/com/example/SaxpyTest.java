package com.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SaxpyTest {
  @Test
  void computesInTheKernelLibrary() {
    float[] x = {1, 2, 3, 4};
    float[] y = {10, 20, 30, 40};
    Saxpy.saxpy(2, x, y);
    assertArrayEquals(new float[] {12, 24, 36, 48}, y);
    assertEquals(1, Saxpy.loads(), "JNI_OnLoad ran once");
    System.out.println("SAXPY-OK " + java.util.Arrays.toString(y));
  }
}
