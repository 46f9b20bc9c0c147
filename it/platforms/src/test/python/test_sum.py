"""The installed wheel, on the platform it was built for (the aarch64 one under qemu)."""
import math
import platform

import sum

total = 0.0
for i in range(1000):
    total += math.sqrt(i)
assert sum.machine() == platform.machine(), (sum.machine(), platform.machine())
assert abs(sum.roots(1000) - total) < 1e-6, sum.roots(1000)
assert sum.roots(-5) == -1
print("machine", sum.machine(), "roots", sum.roots(1000))
