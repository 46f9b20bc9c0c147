// Blocked attention backward on all cores, split like the CUDA kernels so no two threads write
// the same output: one pass owns blocks of keys (dK, dV), a second owns blocks of queries (dQ).
// Both rebuild P = exp(S - lse) for their tile; K and V tiles are transposed once per tile so the
// per-row score loops run over contiguous keys and vectorize.
#include <algorithm>
#include <cmath>
#include <vector>

#include "mha_internal.h"

namespace mha {
namespace {

constexpr int kBlock = 64;

struct BwdJob {
  const Shape *s;
  const float *q, *k, *v, *out, *dout, *lse;
  float *dq, *dk, *dv;
  std::vector<float> delta;  // rowsum(dout * out) per row
  int blocks_per_head;
};

// Transposes rows [n0, n0 + cols) of a [seq, dim] slice into dst[dim][kBlock].
void transpose_tile(const float *src, int n0, int cols, int dim, float *dst) {
  for (int j = 0; j < cols; ++j) {
    for (int d = 0; d < dim; ++d) dst[d * kBlock + j] = src[(n0 + j) * dim + d];
  }
}

// For query row `row` against keys [n0, n0 + limit): the probabilities and dS.
void row_terms(const BwdJob &job, std::size_t head, int row, const float *k_t, const float *v_t,
               int limit, float *prob, float *ds) {
  const Shape &s = *job.s;
  const std::size_t at = (head * s.seq + row) * static_cast<std::size_t>(s.dim);
  const float *qi = job.q + at, *doi = job.dout + at;
  std::fill(prob, prob + limit, 0.f);
  std::fill(ds, ds + limit, 0.f);
  for (int d = 0; d < s.dim; ++d) {
    const float qd = qi[d] * s.scale, gd = doi[d];
    const float *kd = k_t + d * kBlock, *vd = v_t + d * kBlock;
    for (int j = 0; j < limit; ++j) {
      prob[j] += qd * kd[j];
      ds[j] += gd * vd[j];
    }
  }
  const float lse = job.lse[head * s.seq + row], delta = job.delta[head * s.seq + row];
  for (int j = 0; j < limit; ++j) {
    prob[j] = std::exp(prob[j] - lse);
    ds[j] = prob[j] * (ds[j] - delta);
  }
}

void key_block(std::size_t item, void *context) {
  const BwdJob &job = *static_cast<const BwdJob *>(context);
  const Shape &s = *job.s;
  const int dim = s.dim;
  const std::size_t head = item / job.blocks_per_head;
  const int n0 = static_cast<int>(item % job.blocks_per_head) * kBlock;
  const int cols = std::min(kBlock, s.seq - n0);
  const std::size_t base = head * s.seq * static_cast<std::size_t>(dim);
  std::vector<float> k_t(static_cast<std::size_t>(dim) * kBlock), v_t(k_t.size());
  std::vector<float> dk(static_cast<std::size_t>(cols) * dim, 0.f), dv(dk.size(), 0.f);
  std::vector<float> prob(kBlock), ds(kBlock);
  transpose_tile(job.k + base, n0, cols, dim, k_t.data());
  transpose_tile(job.v + base, n0, cols, dim, v_t.data());
  for (int row = s.causal ? n0 : 0; row < s.seq; ++row) {
    const int limit = s.causal ? std::min(cols, row - n0 + 1) : cols;
    row_terms(job, head, row, k_t.data(), v_t.data(), limit, prob.data(), ds.data());
    const float *qi = job.q + base + static_cast<std::size_t>(row) * dim;
    const float *doi = job.dout + base + static_cast<std::size_t>(row) * dim;
    for (int j = 0; j < limit; ++j) {
      float *dkj = &dk[static_cast<std::size_t>(j) * dim], *dvj = &dv[static_cast<std::size_t>(j) * dim];
      for (int d = 0; d < dim; ++d) {
        dkj[d] += ds[j] * qi[d];
        dvj[d] += prob[j] * doi[d];
      }
    }
  }
  for (std::size_t x = 0; x < dk.size(); ++x) {
    job.dk[base + static_cast<std::size_t>(n0) * dim + x] = dk[x] * s.scale;
    job.dv[base + static_cast<std::size_t>(n0) * dim + x] = dv[x];
  }
}

void query_block(std::size_t item, void *context) {
  const BwdJob &job = *static_cast<const BwdJob *>(context);
  const Shape &s = *job.s;
  const int dim = s.dim;
  const std::size_t head = item / job.blocks_per_head;
  const int m0 = static_cast<int>(item % job.blocks_per_head) * kBlock;
  const int rows = std::min(kBlock, s.seq - m0);
  const std::size_t base = head * s.seq * static_cast<std::size_t>(dim);
  std::vector<float> k_t(static_cast<std::size_t>(dim) * kBlock), v_t(k_t.size());
  std::vector<float> dq(static_cast<std::size_t>(rows) * dim, 0.f);
  std::vector<float> prob(kBlock), ds(kBlock);
  const int kv_end = s.causal ? m0 + rows : s.seq;
  for (int n0 = 0; n0 < kv_end; n0 += kBlock) {
    const int cols = std::min(kBlock, s.seq - n0);
    transpose_tile(job.k + base, n0, cols, dim, k_t.data());
    transpose_tile(job.v + base, n0, cols, dim, v_t.data());
    for (int i = 0; i < rows; ++i) {
      const int row = m0 + i;
      const int limit = s.causal ? std::min(cols, row - n0 + 1) : cols;
      if (limit <= 0) continue;
      row_terms(job, head, row, k_t.data(), v_t.data(), limit, prob.data(), ds.data());
      float *dqi = &dq[static_cast<std::size_t>(i) * dim];
      for (int j = 0; j < limit; ++j) {
        const float *kj = job.k + base + static_cast<std::size_t>(n0 + j) * dim;
        for (int d = 0; d < dim; ++d) dqi[d] += ds[j] * kj[d];
      }
    }
  }
  for (std::size_t x = 0; x < dq.size(); ++x) {
    job.dq[base + static_cast<std::size_t>(m0) * dim + x] = dq[x] * s.scale;
  }
}

void row_delta(std::size_t row, void *context) {
  BwdJob &job = *static_cast<BwdJob *>(context);
  const std::size_t at = row * job.s->dim;
  float sum = 0.f;
  for (int d = 0; d < job.s->dim; ++d) sum += job.dout[at + d] * job.out[at + d];
  job.delta[row] = sum;
}

}  // namespace

void cpu_blocked_bwd(const Shape &s, const float *q, const float *k, const float *v,
                     const float *out, const float *dout, const float *lse, float *dq, float *dk,
                     float *dv) {
  BwdJob job{&s, q, k, v, out, dout, lse, dq, dk, dv, std::vector<float>(s.rows()),
             (s.seq + kBlock - 1) / kBlock};
  for (std::size_t row = 0; row < s.rows(); ++row) row_delta(row, &job);
  const std::size_t items = s.heads_total() * job.blocks_per_head;
  parallel_for(items, key_block, &job);
  parallel_for(items, query_block, &job);
}

}  // namespace mha
