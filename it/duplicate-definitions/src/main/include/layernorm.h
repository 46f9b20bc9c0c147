// Like third-party kernel code whose header defines ordinary functions: meant for one translation unit.
#pragma once
void layernorm_forward(float *out, const float *in, int n) {
  for (int i = 0; i < n; i++) out[i] = in[i];
}
