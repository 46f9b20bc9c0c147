# PyTorch SDPA at the shapes fwd_sm90_check and bwd_check time (B=4, H=16; fp16 and bf16; head dim
# 128 and 64), medians with events, printed in their format: forward at seq 1k to 16k, backward
# (torch.autograd.grad of a forward that keeps what the backward needs) at 4k and 16k.
import torch
import torch.nn.functional as F


def median_ms(fn, repeats):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


for d in (128, 64):
    for dtype, name in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
        for seq in (1024, 4096, 8192, 16384):
            q, k, v = (torch.randn(4, 16, seq, d, device="cuda", dtype=dtype, requires_grad=True) for _ in range(3))
            for causal in (False, True):
                label = f"{name} {'causal' if causal else 'full'} d{d} seq {seq}"
                flops = 4 * 4 * 16 * seq * seq * d * (0.5 if causal else 1.0)
                # The inputs require grad, so SDPA keeps the log-sum-exp as ours does.
                ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), 20)
                print(f"sdpa {label}: {ms:.3f} ms, {flops / ms / 1e9:.0f} TFLOP/s")
                if seq in (4096, 16384):
                    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    grad = torch.randn_like(out)
                    ms = median_ms(lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True), 10)
                    print(f"sdpa bwd {label}: {ms:.3f} ms, {2.5 * flops / ms / 1e9:.0f} TFLOP/s")
                    del out, grad
            del q, k, v
