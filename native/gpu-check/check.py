#!/usr/bin/env python3
"""GPU check of libmha's CUDA kernels against PyTorch, on a machine with a GPU and PyTorch.

The libraries are built elsewhere (native/gpu-check/build.sh, which needs Java and nvcc but no
GPU) and loaded here with ctypes. Modes:
  check.py correctness DIST     every dtype x head dim x causal on several shapes, forward outputs,
                                log-sum-exp and gradients against a float64 reference; outputs
                                poisoned with NaN first; NaN never passes; then the FP8 (e4m3)
                                forward (head dim 128, fp16/bf16 out, causal and not) against the
                                float64 reference on the values its bytes stand for
  check.py two-copies DIST      the release copy and a deliberately different one (variant 2) in one
                                process, both loaded RTLD_GLOBAL, in both load orders: each answers
                                with its own kernels
  check.py timing DIST          forward and backward against torch SDPA: batch 4, 16 heads, head
                                dim 128 and 64, seq 1k/4k/8k/16k, fp16/bf16; the FP8 forward
                                (head dim 128) against SDPA's fp16 forward
  check.py quick DIST           correctness on two small shapes (to run under compute-sanitizer)
  check.py repeat DIST          the backward twice on the same inputs (fp16 and bf16, 2x8x2048 and
                                1x4x2048, head dim 64 and 128, causal and not): which gradients came
                                out the same bits; with MHA_DETERMINISTIC=1 all must
  check.py profile DIST         one forward and backward, fp16, b=4 h=16 s=4096 d=128, and one FP8
                                forward, full then causal, and an fp16 forward without a mask at
                                seq 8192: the launches to look at with ncu
  check.py fp8 DIST             the FP8 forward's part of correctness and timing alone
  check.py compare DIST OTHER [randn|uniform]
                                two builds in one process, their forwards and backwards taking
                                turns on the same inputs (b=4, h=16; head dim 128 at seq 4k and
                                8k, 64 at 4k and 16k): OTHER/release's time over DIST/release's;
                                uniform: values of variance 1 from a uniform distribution
                                instead of torch.randn
  check.py compare-fwd DIST OTHER...
                                the forwards alone of several builds and SDPA's in one process
                                (b=4, h=16; head dim 128 at 4k, 8k, 16k, causal at 4k, 8k; 64 at 4k,
                                causal at 16k), the order rotated every round: each one's speed
                                over DIST's
  check.py compare-bwd DIST OTHER...
                                the same for the backwards (head dim 128 at 4k and 8k, causal at
                                4k; 64 at 4k and 16k, causal at 4k and 16k), with each build's
                                largest gradient difference from DIST's
  check.py compare-bwd-causal DIST OTHER...
                                the same on causal cases only: head dim 64 and 128 at 4k, 8k, 16k
  check.py compare-bwd-d64 DIST OTHER...
                                the same at head dim 64 only, with and without a mask, at 4k, 8k,
                                16k
  check.py all DIST             the three, writing results.json and report.md to $OUT (or .)
Exit status 1 when any check fails.
"""
import ctypes
import itertools
import json
import math
import os
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F

MHA_CUDA = 2
MHA_CPU_BLOCKED = 1
DTYPES = {"f32": (0, torch.float32), "f16": (1, torch.float16), "bf16": (2, torch.bfloat16)}
# Largest error relative to the largest reference magnitude. The kernels compute in float32 from
# the rounded inputs, so the output rounding dominates; gradients get twice the bound.
BOUNDS = {"f32": 1e-4, "f16": 2e-3, "bf16": 1.6e-2}
LSE_BOUND = 1e-3
# The FP8 forward's bounds. out: P enters the second product as e4m3 (3 mantissa bits), so the
# weights are rounded by up to 1/16 of themselves, on top of the output dtype's rounding (measured
# up to 3.1e-2 on an H100). lse: the e4m3 products accumulate with less than float32's precision
# (measured up to 8.6e-4).
FP8_BOUND = 6e-2
FP8_LSE_BOUND = 3e-3
E4M3_MAX = 448.0


class FwdArgs(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("batch", ctypes.c_int), ("heads", ctypes.c_int),
                ("seq_len", ctypes.c_int), ("head_dim", ctypes.c_int), ("scale", ctypes.c_float),
                ("causal", ctypes.c_int), ("q", ctypes.c_void_p), ("k", ctypes.c_void_p),
                ("v", ctypes.c_void_p), ("out", ctypes.c_void_p), ("lse", ctypes.c_void_p)]


class BwdArgs(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("batch", ctypes.c_int), ("heads", ctypes.c_int),
                ("seq_len", ctypes.c_int), ("head_dim", ctypes.c_int), ("scale", ctypes.c_float),
                ("causal", ctypes.c_int), ("q", ctypes.c_void_p), ("k", ctypes.c_void_p),
                ("v", ctypes.c_void_p), ("out", ctypes.c_void_p), ("dout", ctypes.c_void_p),
                ("lse", ctypes.c_void_p), ("dq", ctypes.c_void_p), ("dk", ctypes.c_void_p),
                ("dv", ctypes.c_void_p), ("workspace", ctypes.c_void_p)]


MHA_ERR_UNSUPPORTED = 2


class Unsupported(RuntimeError):
    """The library answered MHA_ERR_UNSUPPORTED: no kernel for this call on this device."""


class Fp8FwdArgs(ctypes.Structure):
    _fields_ = [("out_dtype", ctypes.c_int), ("batch", ctypes.c_int), ("heads", ctypes.c_int),
                ("seq_len", ctypes.c_int), ("head_dim", ctypes.c_int), ("scale", ctypes.c_float),
                ("causal", ctypes.c_int), ("q", ctypes.c_void_p), ("k", ctypes.c_void_p),
                ("v", ctypes.c_void_p), ("q_scale", ctypes.c_float), ("k_scale", ctypes.c_float),
                ("v_scale", ctypes.c_float), ("out", ctypes.c_void_p), ("lse", ctypes.c_void_p),
                ("workspace", ctypes.c_void_p)]


class Mha:
    """One loaded copy of libmha. RTLD_GLOBAL is the harshest way to load two copies: every
    exported symbol of the first becomes a candidate for the second's references."""

    def __init__(self, path):
        self.path = path
        self.lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        self.lib.mha_fwd.argtypes = [ctypes.c_int, ctypes.POINTER(FwdArgs), ctypes.c_void_p]
        self.lib.mha_bwd.argtypes = [ctypes.c_int, ctypes.POINTER(BwdArgs), ctypes.c_void_p]
        self.lib.mha_fwd_fp8.argtypes = [ctypes.c_int, ctypes.POINTER(Fp8FwdArgs), ctypes.c_void_p]
        self.lib.mha_bwd_workspace_size.restype = ctypes.c_size_t
        self.lib.mha_fwd_fp8_workspace_size.restype = ctypes.c_size_t
        self.lib.mha_status_string.restype = ctypes.c_char_p
        self.lib.mha_last_cuda_error.restype = ctypes.c_char_p
        self.lib.mha_version.restype = ctypes.c_char_p

    def workspace(self, b, h, s):
        """The backward's device workspace, NaN-filled: a kernel must not read what none wrote."""
        return torch.full((self.lib.mha_bwd_workspace_size(b, h, s) // 4,), float("nan"), device="cuda")

    def fp8_workspace(self, b, h, s, d):
        """The FP8 forward's device workspace, filled with 0xff (e4m3 NaN): unwritten bytes read show."""
        return torch.full((self.lib.mha_fwd_fp8_workspace_size(b, h, s, d),), 255, dtype=torch.uint8, device="cuda")

    def variant(self):
        return self.lib.mha_kernel_variant()

    def _check(self, status, what):
        if status == MHA_ERR_UNSUPPORTED:
            raise Unsupported("%s: %s" % (what, self.lib.mha_status_string(status).decode()))
        if status != 0:
            raise RuntimeError("%s: %s %s" % (what, self.lib.mha_status_string(status).decode(),
                                              self.lib.mha_last_cuda_error().decode()))

    def fwd(self, q, k, v, causal, scale, out, lse, backend=MHA_CUDA):
        b, h, s, d = q.shape
        args = FwdArgs(dtype_code(q), b, h, s, d, scale, int(causal), q.data_ptr(), k.data_ptr(),
                       v.data_ptr(), out.data_ptr(), lse.data_ptr())
        self._check(self.lib.mha_fwd(backend, ctypes.byref(args), stream(backend)), "mha_fwd")

    def fwd_fp8(self, q8, k8, v8, scales, causal, scale, out, lse, workspace):
        """q8, k8, v8: float8_e4m3fn tensors standing for their values times scales[0..2]."""
        b, h, s, d = q8.shape
        args = Fp8FwdArgs(dtype_code(out), b, h, s, d, scale, int(causal), q8.data_ptr(), k8.data_ptr(),
                          v8.data_ptr(), *scales, out.data_ptr(), lse.data_ptr(), workspace.data_ptr())
        self._check(self.lib.mha_fwd_fp8(MHA_CUDA, ctypes.byref(args), stream(MHA_CUDA)), "mha_fwd_fp8")

    def bwd(self, q, k, v, out, dout, lse, causal, scale, dq, dk, dv, workspace):
        b, h, s, d = q.shape
        args = BwdArgs(dtype_code(q), b, h, s, d, scale, int(causal), q.data_ptr(), k.data_ptr(),
                       v.data_ptr(), out.data_ptr(), dout.data_ptr(), lse.data_ptr(),
                       dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), workspace.data_ptr())
        self._check(self.lib.mha_bwd(MHA_CUDA, ctypes.byref(args), stream(MHA_CUDA)), "mha_bwd")


def dtype_code(t):
    return next(code for code, dt in DTYPES.values() if dt == t.dtype)


def stream(backend):
    return torch.cuda.current_stream().cuda_stream if backend == MHA_CUDA else None


def poisoned(like, dtype=None):
    return torch.full(like.shape, float("nan"), dtype=dtype or like.dtype, device=like.device)


def reference(q, k, v, dout, causal, scale):
    """float64 forward, log-sum-exp and (unless dout is None) gradients from the (already rounded)
    inputs."""
    q64, k64, v64 = (t.double().requires_grad_() for t in (q, k, v))
    scores = (q64 @ k64.transpose(-1, -2)) * scale
    if causal:
        s = q.shape[2]
        mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    out = torch.softmax(scores, dim=-1) @ v64
    if dout is not None:
        out.backward(dout.double())
    return out.detach(), lse.detach(), q64.grad, k64.grad, v64.grad


def rel_error(got, want):
    """max |got - want| / max |want|; NaN or inf anywhere in got gives inf."""
    got = got.double()
    if not torch.isfinite(got).all():
        return math.inf
    return ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


def torch_sdpa(q, k, v, dout, causal, scale):
    """PyTorch's own SDPA in the input dtype: the yardstick for what this precision gives."""
    qg, kg, vg = (t.detach().clone().requires_grad_() for t in (q, k, v))
    out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, scale=scale)
    out.backward(dout)
    return out.detach(), qg.grad, kg.grad, vg.grad


def quantized(t):
    """t as e4m3 with one scale for the tensor (its largest magnitude at e4m3's largest), and the
    values the bytes stand for."""
    scale = t.abs().max().float().item() / E4M3_MAX
    t8 = (t.float() / scale).to(torch.float8_e4m3fn)
    return t8, scale, t8.double() * scale


def correctness_fp8(mha, shapes):
    rows, failures = [], 0
    gen = torch.Generator(device="cuda").manual_seed(20261125)
    dim = 128
    for name in ("f16", "bf16"):
        for causal in (False, True):
            for (b, h, s) in shapes:
                scale = 1.0 / math.sqrt(dim)
                q, k, v = (torch.randn(b, h, s, dim, device="cuda", generator=gen) for _ in range(3))
                (q8, qs, q64), (k8, ks, k64), (v8, vs, v64) = quantized(q), quantized(k), quantized(v)
                out, lse = poisoned(q, DTYPES[name][1]), poisoned(q[..., 0], torch.float32)
                try:
                    mha.fwd_fp8(q8, k8, v8, (qs, ks, vs), causal, scale, out, lse, mha.fp8_workspace(b, h, s, dim))
                except Unsupported as e:  # e.g. MHA_DISABLE_SM90=1: the FP8 forward exists on sm_90a only
                    print("SKIP e4m3->%s d=%d causal=%d b=%d h=%d s=%d: %s" % (name, dim, causal, b, h, s, e), flush=True)
                    continue
                torch.cuda.synchronize()
                ref = reference(q64, k64, v64, None, causal, scale)
                # Yardstick: SDPA on the same values, rounded to the output dtype.
                t_out = F.scaled_dot_product_attention(*(x.to(DTYPES[name][1]) for x in (q64, k64, v64)),
                                                       is_causal=causal, scale=scale)
                err = rel_error(out, ref[0])
                lse_err = (lse.double() - ref[1]).abs().max().item() if torch.isfinite(lse).all() else math.inf
                ok = err <= FP8_BOUND and lse_err <= FP8_LSE_BOUND
                failures += not ok
                rows.append({"dtype": "e4m3->" + name, "dim": dim, "causal": causal, "batch": b, "heads": h,
                             "seq": s, "ours": {"out": err}, "lse": lse_err, "torch": {"out": rel_error(t_out, ref[0])},
                             "bound": FP8_BOUND, "pass": ok})
                print("%s e4m3->%-4s d=%-3d causal=%d b=%d h=%d s=%-4d out %.1e lse %.1e | torch %s out %.1e" % (
                    "PASS" if ok else "FAIL", name, dim, causal, b, h, s, err, lse_err, name,
                    rows[-1]["torch"]["out"]), flush=True)
    return rows, failures


# 67 and 1000 rows are no multiple of any tile; 2 x 16 x 1536 has more query blocks than an H100 has
# SMs, so that a persistent grid (the causal forward at head dim 128) walks several rounds.
SHAPES = ((2, 3, 67), (1, 4, 256), (2, 2, 1000), (2, 16, 1536))
# One long sequence, head dim 128 without a mask, whose last tiles lie partly past seq: rows of
# lse and dQ past 8192 in the backward, the forward's last key tile of 8 keys.
LONG_SHAPE = (1, 2, 8200)
# compute-sanitizer's shapes: at 1 x 2 x 512 the fused backward without a mask at head dim 64 splits
# its key blocks in parts (KeyBlockSplit in hopper_bwd.cuh: fewer blocks than SMs), at 67 it does not.
QUICK_SHAPES = ((1, 2, 67), (1, 2, 512))


def correctness(dist, shapes=SHAPES, long_shape=LONG_SHAPE):
    """Every instance on `shapes`, and fp16/bf16 at head dim 128 without a mask on long_shape
    (unless it is None)."""
    mha = Mha(os.path.join(dist, "release", "libmha.so"))
    assert mha.variant() == 1, "the release build must report kernel variant 1"
    rows, failures = [], 0
    gen = torch.Generator(device="cuda").manual_seed(20261122)
    cases = [(name, dim, causal, shape) for name in DTYPES for dim in (64, 128) for causal in (False, True)
             for shape in shapes]
    if long_shape is not None:
        cases += [(name, 128, False, long_shape) for name in ("f16", "bf16")]
    for name, dim, causal, (b, h, s) in cases:
        dtype = DTYPES[name][1]
        scale = 1.0 / math.sqrt(dim)
        q, k, v, dout = (torch.randn(b, h, s, dim, device="cuda", dtype=dtype, generator=gen)
                         for _ in range(4))
        out, lse = poisoned(q), poisoned(q[..., 0], torch.float32)
        mha.fwd(q, k, v, causal, scale, out, lse)
        dq, dk, dv = poisoned(q), poisoned(q), poisoned(q)
        mha.bwd(q, k, v, out, dout, lse, causal, scale, dq, dk, dv, mha.workspace(b, h, s))
        torch.cuda.synchronize()
        ref = reference(q, k, v, dout, causal, scale)
        t_out, t_dq, t_dk, t_dv = torch_sdpa(q, k, v, dout, causal, scale)
        ours = {"out": rel_error(out, ref[0]), "dq": rel_error(dq, ref[2]), "dk": rel_error(dk, ref[3]),
                "dv": rel_error(dv, ref[4])}
        lse_err = (lse.double() - ref[1]).abs().max().item() if torch.isfinite(lse).all() else math.inf
        theirs = {"out": rel_error(t_out, ref[0]), "dq": rel_error(t_dq, ref[2]),
                  "dk": rel_error(t_dk, ref[3]), "dv": rel_error(t_dv, ref[4])}
        bound = BOUNDS[name]
        ok = (ours["out"] <= bound and lse_err <= LSE_BOUND
              and all(ours[g] <= 2 * bound for g in ("dq", "dk", "dv")))
        failures += not ok
        row = {"dtype": name, "dim": dim, "causal": causal, "batch": b, "heads": h,
               "seq": s, "ours": ours, "lse": lse_err, "torch": theirs, "bound": bound,
               "pass": ok}
        rows.append(row)
        grads = " ".join("%s %.1e" % (g, ours[g]) for g in ("dq", "dk", "dv"))
        print("%s %-4s d=%-3d causal=%d b=%d h=%d s=%-4d out %.1e lse %.1e %s"
              " | torch out %.1e dq %.1e dk %.1e dv %.1e" % (
                  "PASS" if ok else "FAIL", name, dim, causal, b, h, s, ours["out"], lse_err, grads,
                  theirs["out"], theirs["dq"], theirs["dk"], theirs["dv"]), flush=True)
    fp8_rows, fp8_failures = correctness_fp8(mha, shapes)
    return rows + fp8_rows, failures + fp8_failures


def two_copies_child(dist, order):
    """Runs in a fresh process: loads both copies in `order`, checks who answers."""
    paths = {"release": os.path.join(dist, "release", "libmha.so"),
             "variant2": os.path.join(dist, "variant2", "libmha.so")}
    first, second = ("release", "variant2") if order == "release-first" else ("variant2", "release")
    libs = {first: Mha(paths[first])}
    libs[second] = Mha(paths[second])
    gen = torch.Generator(device="cuda").manual_seed(7)
    b, h, s, d = 2, 4, 300, 128
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16, generator=gen) for _ in range(3))
    want = reference(q, k, v, None, True, d ** -0.5)[0]
    result = {"order": order, "variants": {n: lib.variant() for n, lib in libs.items()}}
    ok = result["variants"] == {"release": 1, "variant2": 2}
    # Each copy on the GPU and on the CPU path; the release copy again after the variant ran.
    for backend, device in ((MHA_CUDA, "cuda"), (MHA_CPU_BLOCKED, "cpu")):
        qd, kd, vd = (t.to(device) for t in (q, k, v))
        for name in (first, second, "release"):
            out, lse = poisoned(qd), poisoned(qd[..., 0], torch.float32)
            libs[name].fwd(qd, kd, vd, True, d ** -0.5, out, lse, backend=backend)
            torch.cuda.synchronize()
            expected = want if name == "release" else want / 2
            err = rel_error(out.cuda(), expected)
            key = "%s %s" % ("cuda" if backend == MHA_CUDA else "cpu", name)
            result[key] = err
            ok &= err <= BOUNDS["f16"]
    result["pass"] = ok
    print(json.dumps(result))
    return 0 if ok else 1


def two_copies(dist):
    results, failures = [], 0
    for order in ("release-first", "variant2-first"):
        proc = subprocess.run([sys.executable, __file__, "two-copies-child", dist, order],
                              capture_output=True, text=True)
        sys.stderr.write(proc.stderr)
        lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
        result = json.loads(lines[-1]) if lines else {"order": order, "pass": False, "output": proc.stdout}
        result["pass"] = result.get("pass", False) and proc.returncode == 0
        failures += not result["pass"]
        print("%s two copies, %s: %s" % ("PASS" if result["pass"] else "FAIL", order, json.dumps(result)), flush=True)
        results.append(result)
    return results, failures


def cuda_time_ms(fn, iters):
    """The mean time in ms of `iters` calls of fn back to back (CUDA events)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


ROUNDS, WARMUP, ITERS = 5, 3, 10
TIMING_ROUNDS = 6  # check.py timing: three rounds of each order


def taking_turns_ms(fns, rounds=ROUNDS, iters=ITERS, rotate=False, orders=None):
    """Each fn's time in ms: the median over `rounds` rounds of the mean of `iters` calls back to back,
    after WARMUP calls. The fns take turns within a round, so that the card's clock, which its power
    limit lowers under sustained matrix work, reaches each of them alike; with `rotate` each round
    starts one fn further on, so that no fn always follows the same one (whose clock it inherits);
    `orders` (lists of indices into fns) are taken in turn, one a round, instead."""
    for fn in fns:
        for _ in range(WARMUP):
            fn()
    times = [[] for _ in fns]
    for r in range(rounds):
        if orders is not None:
            order = orders[r % len(orders)]
        else:
            order = [(k + r) % len(fns) if rotate else k for k in range(len(fns))]
        for i in order:
            times[i].append(cuda_time_ms(fns[i], iters))
    return [statistics.median(t) for t in times]


class Case:
    """One timing case's tensors on the GPU: q, k, v and dout drawn by `draw` (torch.randn's
    signature), out and lse from `mha`'s forward (what the backward takes), the gradients, and a
    backward workspace for each library timed on it."""

    def __init__(self, mha, b, h, s, d, dtype, causal, draw=torch.randn):
        self.q, self.k, self.v, self.dout = (draw(b, h, s, d, device="cuda", dtype=dtype) for _ in range(4))
        self.out, self.lse = torch.empty_like(self.q), torch.empty(b, h, s, device="cuda")
        self.dq, self.dk, self.dv = torch.empty_like(self.q), torch.empty_like(self.q), torch.empty_like(self.q)
        self.causal, self.scale, self.workspaces = causal, d ** -0.5, {}
        self.fwd(mha)()

    def fwd(self, lib):
        """lib's forward on these tensors, as a call to time."""
        return lambda: lib.fwd(self.q, self.k, self.v, self.causal, self.scale, self.out, self.lse)

    def bwd(self, lib):
        """lib's backward on these tensors (with a workspace of its own), as a call to time."""
        if lib.path not in self.workspaces:
            self.workspaces[lib.path] = lib.workspace(*self.q.shape[:3])
        ws = self.workspaces[lib.path]
        return lambda: lib.bwd(self.q, self.k, self.v, self.out, self.dout, self.lse, self.causal, self.scale,
                               self.dq, self.dk, self.dv, ws)


def timing(dist):
    mha = Mha(os.path.join(dist, "release", "libmha.so"))
    rows = []
    b, h = 4, 16
    for d, s in [(128, s) for s in (1024, 4096, 8192, 16384)] + [(64, s) for s in (4096, 16384)]:
        for name in ("f16", "bf16"):
            for causal in (False, True):
                case = Case(mha, b, h, s, d, DTYPES[name][1], causal)
                scale = case.scale
                qg, kg, vg = (t.clone().requires_grad_() for t in (case.q, case.k, case.v))
                o = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, scale=scale)
                # What ran just before a backward changes its time: SDPA's ran 6-8 % faster after
                # SDPA's forward than after ours (H100, head dim 64, causal, seq 16384; ours the same
                # after either). So each backward follows either forward in every other round.
                ours_fwd, ours_bwd, torch_fwd, torch_bwd = taking_turns_ms([
                    case.fwd(mha), case.bwd(mha),
                    lambda: F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, scale=scale),
                    lambda: torch.autograd.grad(o, (qg, kg, vg), case.dout, retain_graph=True)],
                    rounds=TIMING_ROUNDS, orders=[[0, 1, 2, 3], [2, 1, 0, 3]])
                flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
                row = {"seq": s, "dim": d, "dtype": name, "causal": causal, "ours_fwd_ms": ours_fwd, "ours_bwd_ms": ours_bwd,
                       "torch_fwd_ms": torch_fwd, "torch_bwd_ms": torch_bwd,
                       "ours_fwd_tflops": flops / ours_fwd / 1e9, "ours_bwd_tflops": 2.5 * flops / ours_bwd / 1e9,
                       "torch_fwd_tflops": flops / torch_fwd / 1e9, "torch_bwd_tflops": 2.5 * flops / torch_bwd / 1e9}
                rows.append(row)
                print("time s=%d d=%d %-4s causal=%d  fwd ours %.2f ms (%.1f TFLOP/s) torch %.3f ms (%.0f)  "
                      "bwd ours %.2f ms (%.1f) torch %.3f ms (%.0f)" % (
                          s, d, name, causal, ours_fwd, row["ours_fwd_tflops"], torch_fwd, row["torch_fwd_tflops"],
                          ours_bwd, row["ours_bwd_tflops"], torch_bwd, row["torch_bwd_tflops"]), flush=True)
                del case, qg, kg, vg, o
                torch.cuda.empty_cache()
    rows += timing_fp8(mha)
    return rows


def uniform(*shape, dtype, device):
    """Like torch.randn, but uniformly distributed (variance 1 all the same)."""
    return ((torch.rand(*shape, device=device) * 2 - 1) * math.sqrt(3)).to(dtype)


def compare(dist, other, inputs):
    """Two builds timed against each other under the same power limit and on the same inputs; prints
    OTHER's time over DIST's for each case."""
    mha, alt = (Mha(os.path.join(d, "release", "libmha.so")) for d in (dist, other))
    if (mha.variant(), alt.variant()) != (1, 1):
        raise RuntimeError("compare wants two release builds, got variants %d and %d" % (mha.variant(), alt.variant()))
    draw = {"randn": torch.randn, "uniform": uniform}[inputs]
    for d, s in [(128, 4096), (128, 8192), (64, 4096), (64, 16384)]:
        for name in ("f16", "bf16"):
            for causal in (False, True):
                case = Case(mha, 4, 16, s, d, DTYPES[name][1], causal, draw)
                fwd, bwd, other_fwd, other_bwd = taking_turns_ms(
                    [case.fwd(mha), case.bwd(mha), case.fwd(alt), case.bwd(alt)])
                print("compare s=%d d=%d %-4s causal=%d %s  fwd %.3f / %.3f ms = %.3fx  bwd %.3f / %.3f ms = %.3fx" % (
                    s, d, name, causal, inputs, other_fwd, fwd, other_fwd / fwd, other_bwd, bwd, other_bwd / bwd),
                    flush=True)
                del case
                torch.cuda.empty_cache()


def builds(dists):
    """The release libraries of several dist folders, and the folders' names to print."""
    return ([Mha(os.path.join(d, "release", "libmha.so")) for d in dists],
            [os.path.basename(os.path.normpath(d)) for d in dists])


def compare_fwd(dists):
    """The forwards alone of several builds (dist folders; ratios against the first) and SDPA's, in one
    process on the same inputs, taking turns in rotation, each for about 15 ms a round."""
    libs, names = builds(dists)
    for d, s, causal in [(128, 4096, False), (128, 8192, False), (128, 16384, False), (128, 4096, True),
                         (128, 8192, True), (64, 4096, True), (64, 4096, False), (64, 16384, True)]:
        for name in ("f16", "bf16"):
            case = Case(libs[0], 4, 16, s, d, DTYPES[name][1], causal)
            fns = [case.fwd(lib) for lib in libs]
            fns.append(lambda: F.scaled_dot_product_attention(case.q, case.k, case.v, is_causal=causal, scale=case.scale))
            iters = max(5, int(15.0 / cuda_time_ms(fns[0], 3)))
            ms = taking_turns_ms(fns, rounds=2 * len(fns), iters=iters, rotate=True)
            print("compare-fwd s=%d d=%d %-4s causal=%d  %s %.3f ms | %s | SDPA %.3fx" % (
                s, d, name, causal, names[0], ms[0],
                "  ".join("%s %.3fx" % (n, ms[0] / t) for n, t in zip(names[1:], ms[1:-1])), ms[0] / ms[-1]),
                flush=True)
            del case
            torch.cuda.empty_cache()


COMPARE_BWD_CASES = [(128, 4096, False), (128, 8192, False), (128, 4096, True), (64, 4096, False),
                     (64, 16384, False), (64, 4096, True), (64, 16384, True)]
COMPARE_BWD_CAUSAL_CASES = [(d, s, True) for d in (64, 128) for s in (4096, 8192, 16384)]
COMPARE_BWD_D64_CASES = [(64, s, causal) for causal in (False, True) for s in (4096, 8192, 16384)]
COMPARE_BWD_MODES = {"compare-bwd": COMPARE_BWD_CASES, "compare-bwd-causal": COMPARE_BWD_CAUSAL_CASES,
                     "compare-bwd-d64": COMPARE_BWD_D64_CASES}


def compare_bwd(dists, cases=COMPARE_BWD_CASES):
    """The backwards alone of several builds (ratios against the first) and SDPA's, as compare_fwd
    does the forwards; also the largest difference of each build's gradients from the first's (dQ
    is added up in no fixed order, so even the same build differs a little)."""
    libs, names = builds(dists)
    for d, s, causal in cases:
        for name in ("f16", "bf16"):
            case = Case(libs[0], 4, 16, s, d, DTYPES[name][1], causal)
            qg, kg, vg = (t.clone().requires_grad_() for t in (case.q, case.k, case.v))
            out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, scale=case.scale)
            fns = [case.bwd(lib) for lib in libs]
            fns.append(lambda: torch.autograd.grad(out, (qg, kg, vg), case.dout, retain_graph=True))
            grads = []
            for fn in fns[:-1]:
                fn()
                torch.cuda.synchronize()
                grads.append([g.clone().float() for g in (case.dq, case.dk, case.dv)])
            diffs = ["%.0e" % max((a - b).abs().max().item() for a, b in zip(g, grads[0])) for g in grads[1:]]
            iters = max(5, int(15.0 / cuda_time_ms(fns[0], 3)))
            ms = taking_turns_ms(fns, rounds=2 * len(fns), iters=iters, rotate=True)
            print("compare-bwd s=%d d=%d %-4s causal=%d  %s %.3f ms | %s | SDPA %.3fx | gradients vs %s %s" % (
                s, d, name, causal, names[0], ms[0],
                "  ".join("%s %.3fx" % (n, ms[0] / t) for n, t in zip(names[1:], ms[1:-1])), ms[0] / ms[-1],
                names[0], " ".join(diffs)), flush=True)
            del case, qg, kg, vg, out, grads
            torch.cuda.empty_cache()


def timing_fp8(mha):
    """The FP8 forward (transposition of V included) against SDPA's fp16 forward on the same values."""
    rows, b, h, d = [], 4, 16, 128
    for s in (4096, 8192, 16384):
        for causal in (False, True):
            scale = d ** -0.5
            q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
            (q8, qs, _), (k8, ks, _), (v8, vs, _) = quantized(q), quantized(k), quantized(v)
            out, lse, ws = torch.empty_like(q), torch.empty(b, h, s, device="cuda"), mha.fp8_workspace(b, h, s, d)
            qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
            ours, torch_fwd = taking_turns_ms([
                lambda: mha.fwd_fp8(q8, k8, v8, (qs, ks, vs), causal, scale, out, lse, ws),
                lambda: F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, scale=scale)])
            flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
            row = {"seq": s, "dim": d, "dtype": "e4m3", "causal": causal, "ours_fwd_ms": ours, "torch_fwd_ms": torch_fwd,
                   "ours_fwd_tflops": flops / ours / 1e9, "torch_fwd_tflops": flops / torch_fwd / 1e9}
            rows.append(row)
            print("time-fp8 s=%d d=%d causal=%d  fwd e4m3 ours %.3f ms (%.1f TFLOP/s) torch f16 %.3f ms (%.0f)" % (
                s, d, causal, ours, row["ours_fwd_tflops"], torch_fwd, row["torch_fwd_tflops"]), flush=True)
            del q, k, v, q8, k8, v8, out, ws, qg, kg, vg
            torch.cuda.empty_cache()
    return rows


def profile(dist):
    mha = Mha(os.path.join(dist, "release", "libmha.so"))
    b, h, s, d = 4, 16, 4096, 128
    q, k, v, dout = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(4))
    out, lse = torch.empty_like(q), torch.empty(b, h, s, device="cuda")
    dq, dk, dv, ws = torch.empty_like(q), torch.empty_like(q), torch.empty_like(q), mha.workspace(b, h, s)
    (q8, qs, _), (k8, ks, _), (v8, vs, _) = quantized(q), quantized(k), quantized(v)
    ws8 = mha.fp8_workspace(b, h, s, d)
    for causal in (False, True):
        mha.fwd(q, k, v, causal, d ** -0.5, out, lse)
        mha.bwd(q, k, v, out, dout, lse, causal, d ** -0.5, dq, dk, dv, ws)
        mha.fwd_fp8(q8, k8, v8, (qs, ks, vs), causal, d ** -0.5, out, lse, ws8)
    # The forward without a mask at a longer sequence.
    s = 8192
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
    out, lse = torch.empty_like(q), torch.empty(b, h, s, device="cuda")
    mha.fwd(q, k, v, False, d ** -0.5, out, lse)
    torch.cuda.synchronize()


def repeat(dist):
    """Runs each backward twice on the same inputs and compares the bits of dq, dk and dv."""
    mha = Mha(os.path.join(dist, "release", "libmha.so"))
    deterministic = os.environ.get("MHA_DETERMINISTIC", "0") not in ("", "0")
    rows, failures = [], 0
    # at 1 x 4 x 2048 the fused backward without a mask at head dim 64 splits its key blocks in parts
    for (b, h, s), dim in itertools.product(((2, 8, 2048), (1, 4, 2048)), (64, 128)):
        for name in ("f16", "bf16"):
            for causal in (False, True):
                dtype = DTYPES[name][1]
                q, k, v, dout = (torch.randn(b, h, s, dim, device="cuda", dtype=dtype) for _ in range(4))
                out, lse = torch.empty_like(q), torch.empty(b, h, s, device="cuda")
                mha.fwd(q, k, v, causal, dim ** -0.5, out, lse)
                runs = []
                for _ in range(2):
                    grads = [poisoned(q) for _ in range(3)]
                    mha.bwd(q, k, v, out, dout, lse, causal, dim ** -0.5, *grads, mha.workspace(b, h, s))
                    runs.append(grads)
                torch.cuda.synchronize()
                same = {g: bool(torch.equal(a.view(torch.int16), c.view(torch.int16)))
                        for g, a, c in zip(("dq", "dk", "dv"), *runs)}
                ok = all(same.values()) if deterministic else same["dk"] and same["dv"]
                failures += 0 if ok else 1
                rows.append({"dim": dim, "dtype": name, "causal": causal, "batch": b, "heads": h, "seq": s,
                             "same_bits": same, "pass": ok})
                print("%s repeat %-4s d=%d causal=%d b=%d h=%d s=%d  same bits: %s" % (
                    "PASS" if ok else "FAIL", name, dim, causal, b, h, s,
                    " ".join("%s %s" % kv for kv in same.items())),
                    flush=True)
    return rows, failures


def device_info():
    props = torch.cuda.get_device_properties(0)
    return {"device": props.name, "sms": props.multi_processor_count, "torch": torch.__version__,
            "cuda": torch.version.cuda, "capability": "%d.%d" % (props.major, props.minor)}


def main():
    mode, dist = sys.argv[1], os.path.abspath(sys.argv[2])
    if mode == "two-copies-child":
        return two_copies_child(dist, sys.argv[3])
    if mode == "profile":
        return profile(dist)
    if mode == "compare-fwd" or mode in COMPARE_BWD_MODES:
        print(json.dumps(device_info()), flush=True)
        print("speed of each build over %s's (its time over theirs)" % sys.argv[2], flush=True)
        dists = [os.path.abspath(d) for d in sys.argv[2:]]
        if mode == "compare-fwd":
            compare_fwd(dists)
        else:
            compare_bwd(dists, COMPARE_BWD_MODES[mode])
        return 0
    if mode == "compare":
        print(json.dumps(device_info()), flush=True)
        print("time of %s over %s" % (sys.argv[3], sys.argv[2]), flush=True)
        compare(dist, os.path.abspath(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "randn")
        return 0
    report = {"device": device_info()}
    print(json.dumps(report["device"]), flush=True)
    failures = 0
    if mode in ("correctness", "all"):
        report["correctness"], f = correctness(dist)
        failures += f
    if mode == "quick":  # one small shape per instance, for compute-sanitizer
        report["correctness"], f = correctness(dist, shapes=QUICK_SHAPES, long_shape=None)
        failures += f
    if mode == "fp8":  # the FP8 forward alone: correctness and timing
        mha = Mha(os.path.join(dist, "release", "libmha.so"))
        report["correctness"], f = correctness_fp8(mha, SHAPES)
        failures += f
        report["timing"] = timing_fp8(mha)
    if mode == "repeat":
        report["repeat"], f = repeat(dist)
        failures += f
    if mode in ("two-copies", "all"):
        report["two_copies"], f = two_copies(dist)
        failures += f
    if mode in ("timing", "all"):
        report["timing"] = timing(dist)
    out_dir = os.environ.get("OUT", ".")
    with open(os.path.join(out_dir, "results-%s.json" % mode), "w") as f:
        json.dump(report, f, indent=1)
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
