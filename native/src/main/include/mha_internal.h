// Internal kernel entry points shared by the host glue and the kernel archives (not exported).
#ifndef MHA_INTERNAL_H
#define MHA_INTERNAL_H

#include <cstddef>

namespace mha {

// Plain reference forward over `heads` independent [seq, dim] slices.
void attention_forward_reference(const float *q, const float *k, const float *v, float *out,
                                 std::size_t heads, int seq, int dim, float scale, bool causal);

}  // namespace mha
#endif
