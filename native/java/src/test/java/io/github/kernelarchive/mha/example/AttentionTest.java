package io.github.kernelarchive.mha.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.mha.Mha;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AttentionTest {
  @Test
  void theCpuForwardThroughTheBindingMatchesJava() {
    for (boolean causal : new boolean[] {false, true}) {
      int batch = 2, heads = 2, seqLen = 33, headDim = 64;
      Random random = new Random(causal ? 7 : 11);
      float[][] qkv = new float[3][batch * heads * seqLen * headDim];
      for (float[] tensor : qkv) {
        for (int i = 0; i < tensor.length; i++) {
          tensor[i] = (float) random.nextGaussian();
        }
      }
      float[] expected = Attention.reference(qkv[0], qkv[1], qkv[2], batch, heads, seqLen, headDim, causal);
      for (int backend : new int[] {Mha.MHA_CPU_REFERENCE, Mha.MHA_CPU_BLOCKED}) {
        Attention.Forward forward = Attention.forward(backend, qkv[0], qkv[1], qkv[2], batch, heads, seqLen, headDim,
            causal);
        assertEquals(Mha.MHA_OK, forward.status(), "status of backend " + backend);
        double error = 0;
        for (int i = 0; i < expected.length; i++) {
          error = Math.max(error, Math.abs(expected[i] - forward.out()[i]));
        }
        assertTrue(error < 1e-5, "backend " + backend + (causal ? " causal" : "") + ": max |error| " + error);
      }
    }
    // A wrong argument comes back as the library's status, not a crash.
    Attention.Forward bad = Attention.forward(Mha.MHA_CPU_BLOCKED, new float[64], new float[64], new float[64], 1, 1, 1,
        0, false);
    assertEquals(Mha.MHA_ERR_ARGUMENT, bad.status());
    Attention.main(new String[0]);
  }
}
