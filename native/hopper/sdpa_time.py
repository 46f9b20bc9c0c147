# PyTorch SDPA at the shapes the prototypes time (B=4, H=16, D=128; fp16 and bf16), median of 20
# with events, printed in the prototypes' format.
import torch
import torch.nn.functional as F

for dtype, name in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
    for seq in (1024, 4096, 8192, 16384):
        q, k, v = (torch.randn(4, 16, seq, 128, device="cuda", dtype=dtype) for _ in range(3))
        for causal in (False, True):
            for _ in range(3):
                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            torch.cuda.synchronize()
            times = []
            for _ in range(20):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end))
            ms = sorted(times)[10]
            flops = 4 * 4 * 16 * seq * seq * 128 * (0.5 if causal else 1.0)
            print(f"sdpa {name} {'causal' if causal else 'full'} d128 seq {seq}: {ms:.3f} ms, {flops / ms / 1e9:.0f} TFLOP/s")
