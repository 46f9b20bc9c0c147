// Plain attention backward: one thread, double accumulators, the probabilities rebuilt from the
// forward's log-sum-exp exactly as the fast kernels do:
//   P = exp(S - lse), dV = P^T dO, dS = P * (dO V^T - rowsum(dO * O)), dQ = dS K * scale,
//   dK = dS^T Q * scale.
#include <cmath>
#include <vector>

#include "mha_internal.h"

namespace mha {

void cpu_reference_bwd(const Shape &s, const float *q, const float *k, const float *v,
                       const float *out, const float *dout, const float *lse, float *dq, float *dk,
                       float *dv) {
  const std::size_t slice = static_cast<std::size_t>(s.seq) * s.dim;
  std::vector<double> dk_acc(slice), dv_acc(slice), dq_row(s.dim), prob(s.seq), ds(s.seq);
  for (std::size_t h = 0; h < s.heads_total(); ++h) {
    const std::size_t base = h * slice;
    std::fill(dk_acc.begin(), dk_acc.end(), 0.0);
    std::fill(dv_acc.begin(), dv_acc.end(), 0.0);
    for (int i = 0; i < s.seq; ++i) {
      const float *qi = q + base + static_cast<std::size_t>(i) * s.dim;
      const float *doi = dout + base + static_cast<std::size_t>(i) * s.dim;
      const float *oi = out + base + static_cast<std::size_t>(i) * s.dim;
      double delta = 0;
      for (int d = 0; d < s.dim; ++d) delta += double(doi[d]) * oi[d];
      const int last = s.causal ? i : s.seq - 1;
      for (int j = 0; j <= last; ++j) {
        const float *kj = k + base + static_cast<std::size_t>(j) * s.dim;
        const float *vj = v + base + static_cast<std::size_t>(j) * s.dim;
        double dot = 0, dp = 0;
        for (int d = 0; d < s.dim; ++d) {
          dot += double(qi[d]) * kj[d];
          dp += double(doi[d]) * vj[d];
        }
        prob[j] = std::exp(dot * s.scale - lse[h * s.seq + i]);
        ds[j] = prob[j] * (dp - delta);
      }
      std::fill(dq_row.begin(), dq_row.end(), 0.0);
      for (int j = 0; j <= last; ++j) {
        const float *kj = k + base + static_cast<std::size_t>(j) * s.dim;
        double *dkj = &dk_acc[static_cast<std::size_t>(j) * s.dim];
        double *dvj = &dv_acc[static_cast<std::size_t>(j) * s.dim];
        for (int d = 0; d < s.dim; ++d) {
          dq_row[d] += ds[j] * kj[d];
          dkj[d] += ds[j] * qi[d];
          dvj[d] += prob[j] * doi[d];
        }
      }
      for (int d = 0; d < s.dim; ++d) {
        dq[base + static_cast<std::size_t>(i) * s.dim + d] = static_cast<float>(dq_row[d] * s.scale);
      }
    }
    for (std::size_t x = 0; x < slice; ++x) {
      dk[base + x] = static_cast<float>(dk_acc[x] * s.scale);
      dv[base + x] = static_cast<float>(dv_acc[x]);
    }
  }
}

}  // namespace mha
