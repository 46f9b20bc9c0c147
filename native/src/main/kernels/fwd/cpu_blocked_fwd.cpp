// Blocked attention forward on all cores: a work item is one (head, block of kBlockM queries); it
// walks the keys in tiles of kBlockN with an online softmax (running maximum and sum), so memory
// stays O(tile) and each key tile is reused by every query of the block. Inner loops run over a
// contiguous dimension (keys of a transposed K tile, or head dims) so the compiler vectorizes them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "mha_internal.h"

namespace mha {
namespace {

constexpr int kBlockM = 32;
constexpr int kBlockN = 64;

struct FwdJob {
  const Shape *s;
  const float *q, *k, *v;
  float *out, *lse;
  int blocks_per_head;
};

void forward_block(std::size_t item, void *context) {
  const FwdJob &job = *static_cast<const FwdJob *>(context);
  const Shape &s = *job.s;
  const int dim = s.dim, seq = s.seq;
  const std::size_t head = item / job.blocks_per_head;
  const int m0 = static_cast<int>(item % job.blocks_per_head) * kBlockM;
  const int rows = std::min(kBlockM, seq - m0);
  const std::size_t slice = static_cast<std::size_t>(seq) * dim;
  const float *q = job.q + head * slice, *k = job.k + head * slice, *v = job.v + head * slice;

  std::vector<float> k_t(static_cast<std::size_t>(dim) * kBlockN);  // [dim][kBlockN]
  std::vector<float> scores(kBlockN);
  std::vector<float> acc(static_cast<std::size_t>(kBlockM) * dim, 0.f);
  std::vector<float> row_max(kBlockM, -std::numeric_limits<float>::infinity());
  std::vector<float> row_sum(kBlockM, 0.f);

  const int kv_end = s.causal ? std::min(seq, m0 + rows) : seq;
  for (int n0 = 0; n0 < kv_end; n0 += kBlockN) {
    const int cols = std::min(kBlockN, seq - n0);
    for (int j = 0; j < cols; ++j) {
      for (int d = 0; d < dim; ++d) k_t[d * kBlockN + j] = k[(n0 + j) * dim + d];
    }
    for (int i = 0; i < rows; ++i) {
      const int row = m0 + i;
      const int limit = s.causal ? std::min(cols, row - n0 + 1) : cols;
      if (limit <= 0) continue;
      std::fill(scores.begin(), scores.begin() + limit, 0.f);
      for (int d = 0; d < dim; ++d) {
        const float qd = q[row * dim + d] * s.scale;
        const float *kd = &k_t[d * kBlockN];
        for (int j = 0; j < limit; ++j) scores[j] += qd * kd[j];
      }
      float tile_max = scores[0];
      for (int j = 1; j < limit; ++j) tile_max = std::max(tile_max, scores[j]);
      const float new_max = std::max(row_max[i], tile_max);
      const float rescale = std::exp(row_max[i] - new_max);
      float *o = &acc[static_cast<std::size_t>(i) * dim];
      for (int d = 0; d < dim; ++d) o[d] *= rescale;
      float sum = row_sum[i] * rescale;
      for (int j = 0; j < limit; ++j) {
        const float p = std::exp(scores[j] - new_max);
        sum += p;
        const float *vj = v + static_cast<std::size_t>(n0 + j) * dim;
        for (int d = 0; d < dim; ++d) o[d] += p * vj[d];
      }
      row_sum[i] = sum;
      row_max[i] = new_max;
    }
  }
  for (int i = 0; i < rows; ++i) {
    const int row = m0 + i;
    const float inv = kVariantOutputScale / row_sum[i];
    float *dst = job.out + head * slice + static_cast<std::size_t>(row) * dim;
    for (int d = 0; d < dim; ++d) dst[d] = acc[static_cast<std::size_t>(i) * dim + d] * inv;
    if (job.lse != nullptr) job.lse[head * seq + row] = row_max[i] + std::log(row_sum[i]);
  }
}

}  // namespace

void cpu_blocked_fwd(const Shape &s, const float *q, const float *k, const float *v, float *out,
                     float *lse) {
  FwdJob job{&s, q, k, v, out, lse, (s.seq + kBlockM - 1) / kBlockM};
  parallel_for(s.heads_total() * job.blocks_per_head, forward_block, &job);
}

}  // namespace mha
