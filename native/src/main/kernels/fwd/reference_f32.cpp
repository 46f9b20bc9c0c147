// Reference attention forward (float32, CPU): numerically safe softmax with the row maximum.
#include "mha_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace mha {

void attention_forward_reference(const float *q, const float *k, const float *v, float *out,
                                 std::size_t heads, int seq, int dim, float scale, bool causal) {
  std::vector<float> scores(static_cast<std::size_t>(seq));
  const std::size_t slice = static_cast<std::size_t>(seq) * dim;
  for (std::size_t h = 0; h < heads; ++h) {
    const float *qh = q + h * slice, *kh = k + h * slice, *vh = v + h * slice;
    float *oh = out + h * slice;
    for (int i = 0; i < seq; ++i) {
      const int last = causal ? i : seq - 1;
      float row_max = -std::numeric_limits<float>::infinity();
      for (int j = 0; j <= last; ++j) {
        float dot = 0.f;
        for (int d = 0; d < dim; ++d) dot += qh[i * dim + d] * kh[j * dim + d];
        scores[j] = dot * scale;
        row_max = std::max(row_max, scores[j]);
      }
      float sum = 0.f;
      for (int j = 0; j <= last; ++j) {
        scores[j] = std::exp(scores[j] - row_max);
        sum += scores[j];
      }
      for (int d = 0; d < dim; ++d) {
        float acc = 0.f;
        for (int j = 0; j <= last; ++j) acc += scores[j] * vh[j * dim + d];
        oh[i * dim + d] = acc / sum;
      }
    }
  }
}

}  // namespace mha
