"""The installed wheel's binding against attention computed here in plain Python (run by kernel:python-test)."""
import math
import os
import random

import mha

assert "site-packages" in mha.__file__, mha.__file__
assert mha.version().count(".") == 2, mha.version()
# The wheel ships the public header alone (kernel.headers: src/main/include), none of the internal ones.
shipped = sorted(os.listdir(os.path.join(os.path.dirname(mha.__file__), "include")))
assert shipped == ["mha.h"], shipped

batch, heads, seq, dim = 1, 2, 5, 64
rng = random.Random(7)
q, k, v = ([rng.uniform(-1, 1) for _ in range(batch * heads * seq * dim)] for _ in range(3))


def reference(causal):
    out = []
    for h in range(batch * heads):
        base = h * seq * dim
        row = lambda t, i: t[base + i * dim: base + (i + 1) * dim]
        for i in range(seq):
            keys = range(i + 1) if causal else range(seq)
            scores = [sum(a * b for a, b in zip(row(q, i), row(k, j))) / math.sqrt(dim) for j in keys]
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            total = sum(weights)
            out.extend(sum(w * row(v, j)[d] for w, j in zip(weights, keys)) / total for d in range(dim))
    return out


for causal in (False, True):
    got = mha.attention_cpu(q, k, v, batch, heads, seq, dim, causal)
    worst = max(abs(a - b) for a, b in zip(got, reference(causal)))
    assert worst < 1e-4, (causal, worst)
print("mha", mha.version(), "CUDA" if mha.cuda_available() else "CPU only", "forward matches")
