// Plain attention forward: one thread, double accumulators. The yardstick the blocked and CUDA
// kernels are compared with, not a fast path.
#include <cmath>
#include <limits>
#include <vector>

#include "mha_internal.h"

namespace mha {

void cpu_reference_fwd(const Shape &s, const float *q, const float *k, const float *v, float *out,
                       float *lse) {
  const std::size_t slice = static_cast<std::size_t>(s.seq) * s.dim;
  std::vector<double> scores(s.seq), acc(s.dim);
  for (std::size_t h = 0; h < s.heads_total(); ++h) {
    const float *qh = q + h * slice, *kh = k + h * slice, *vh = v + h * slice;
    for (int i = 0; i < s.seq; ++i) {
      const int last = s.causal ? i : s.seq - 1;
      double row_max = -std::numeric_limits<double>::infinity();
      for (int j = 0; j <= last; ++j) {
        double dot = 0;
        for (int d = 0; d < s.dim; ++d) dot += double(qh[i * s.dim + d]) * kh[j * s.dim + d];
        scores[j] = dot * s.scale;
        row_max = std::max(row_max, scores[j]);
      }
      double sum = 0;
      for (int j = 0; j <= last; ++j) sum += (scores[j] = std::exp(scores[j] - row_max));
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int j = 0; j <= last; ++j) {
        for (int d = 0; d < s.dim; ++d) acc[d] += scores[j] * vh[j * s.dim + d];
      }
      float *row_out = out + h * slice + static_cast<std::size_t>(i) * s.dim;
      for (int d = 0; d < s.dim; ++d) row_out[d] = static_cast<float>(acc[d] / sum * kVariantOutputScale);
      if (lse != nullptr) lse[h * s.seq + i] = static_cast<float>(row_max + std::log(sum));
    }
  }
}

}  // namespace mha
