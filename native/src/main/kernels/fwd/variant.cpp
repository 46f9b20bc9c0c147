// The build variant of these kernels, kept in the kernel archive so it identifies the kernels
// actually linked, not the host glue.
#include "mha_internal.h"

namespace mha {
int kernel_variant() { return MHA_KERNEL_VARIANT; }
}  // namespace mha
