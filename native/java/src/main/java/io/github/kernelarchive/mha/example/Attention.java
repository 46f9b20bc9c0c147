package io.github.kernelarchive.mha.example;

import io.github.kernelarchive.mha.Mha;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

/**
 * Multi-head attention from Java: {@code mha_fwd} of libmha on the CPU, through the binding the
 * plugin generated from mha.h ({@link Mha}), checked against a plain Java forward. No JNI, no
 * System.load: the binding loads the library from native/'s jar on first use.
 */
public final class Attention {
  private Attention() {}

  /** The forward of [batch, heads, seqLen, headDim] float tensors on {@code backend}; its status and output. */
  public record Forward(int status, float[] out) {}

  public static Forward forward(int backend, float[] q, float[] k, float[] v, int batch, int heads, int seqLen,
      int headDim, boolean causal) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment args = Mha.MhaFwdArgs.allocate(arena);
      MemorySegment out = arena.allocate(ValueLayout.JAVA_FLOAT, q.length);
      Mha.MhaFwdArgs.dtype(args, Mha.MHA_F32);
      Mha.MhaFwdArgs.batch(args, batch);
      Mha.MhaFwdArgs.heads(args, heads);
      Mha.MhaFwdArgs.seq_len(args, seqLen);
      Mha.MhaFwdArgs.head_dim(args, headDim);
      Mha.MhaFwdArgs.scale(args, (float) (1 / Math.sqrt(headDim)));
      Mha.MhaFwdArgs.causal(args, causal ? 1 : 0);
      Mha.MhaFwdArgs.q(args, arena.allocateFrom(ValueLayout.JAVA_FLOAT, q));
      Mha.MhaFwdArgs.k(args, arena.allocateFrom(ValueLayout.JAVA_FLOAT, k));
      Mha.MhaFwdArgs.v(args, arena.allocateFrom(ValueLayout.JAVA_FLOAT, v));
      Mha.MhaFwdArgs.out(args, out);
      int status = Mha.mha_fwd(backend, args, MemorySegment.NULL);
      return new Forward(status, out.toArray(ValueLayout.JAVA_FLOAT));
    }
  }

  /** The same forward in plain Java, in double precision: the yardstick. */
  public static float[] reference(float[] q, float[] k, float[] v, int batch, int heads, int seqLen, int headDim,
      boolean causal) {
    float[] out = new float[q.length];
    double scale = 1 / Math.sqrt(headDim);
    for (int bh = 0; bh < batch * heads; bh++) {
      int base = bh * seqLen * headDim;
      for (int i = 0; i < seqLen; i++) {
        int keys = causal ? i + 1 : seqLen;
        double[] scores = new double[keys];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < keys; j++) {
          double s = 0;
          for (int d = 0; d < headDim; d++) {
            s += q[base + i * headDim + d] * k[base + j * headDim + d];
          }
          scores[j] = s * scale;
          max = Math.max(max, scores[j]);
        }
        double sum = 0;
        for (int j = 0; j < keys; j++) {
          scores[j] = Math.exp(scores[j] - max);
          sum += scores[j];
        }
        for (int d = 0; d < headDim; d++) {
          double o = 0;
          for (int j = 0; j < keys; j++) {
            o += scores[j] * v[base + j * headDim + d];
          }
          out[base + i * headDim + d] = (float) (o / sum);
        }
      }
    }
    return out;
  }

  public static void main(String[] args) {
    int batch = 2, heads = 3, seqLen = 40, headDim = 64;
    Random random = new Random(20261127);
    float[][] qkv = new float[3][batch * heads * seqLen * headDim];
    for (float[] tensor : qkv) {
      for (int i = 0; i < tensor.length; i++) {
        tensor[i] = (float) random.nextGaussian();
      }
    }
    Forward forward = forward(Mha.MHA_CPU_BLOCKED, qkv[0], qkv[1], qkv[2], batch, heads, seqLen, headDim, true);
    float[] expected = reference(qkv[0], qkv[1], qkv[2], batch, heads, seqLen, headDim, true);
    double error = 0;
    for (int i = 0; i < expected.length; i++) {
      error = Math.max(error, Math.abs(expected[i] - forward.out()[i]));
    }
    System.out.printf("libmha %s: mha_fwd (CPU, causal, %dx%dx%dx%d) status %d, max |error| against Java %.2e%n",
        Mha.mha_version().reinterpret(64).getString(0), batch, heads, seqLen, headDim, forward.status(), error);
  }
}
