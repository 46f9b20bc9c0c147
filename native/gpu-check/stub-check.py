#!/usr/bin/env python3
"""Checks libmha built with kernel.cuda.runtime=stub (no NEEDED on libcudart) on a GPU machine.

DIST is a build.sh output folder (its release/libmha.so is loaded) or the path of a libmha.so, such
as the one `pip install` put into site-packages/mha/ from native/'s wheel.

  stub-check.py bare DIST    no PyTorch in the process: device memory through the CUDA driver API,
                             so the library's stub must dlopen libcudart itself (from the
                             LD_LIBRARY_PATH); the CUDA output is compared with the CPU backend
  stub-check.py torch DIST   PyTorch imported and initialised first (its CUDA runtime loaded): the
                             stub reuses a loaded runtime that has every function it needs (RTLD_NOLOAD)
Prints which libcudart files the process has mapped; exit status 1 on a mismatch."""
import ctypes
import random
import sys

F32, CPU_REFERENCE, CUDA = 0, 0, 2
B, H, S, D = 1, 2, 128, 64


class FwdArgs(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("batch", ctypes.c_int), ("heads", ctypes.c_int), ("seq_len", ctypes.c_int),
                ("head_dim", ctypes.c_int), ("scale", ctypes.c_float), ("causal", ctypes.c_int),
                ("q", ctypes.c_void_p), ("k", ctypes.c_void_p), ("v", ctypes.c_void_p), ("out", ctypes.c_void_p),
                ("lse", ctypes.c_void_p)]


def cudart_mappings():
    with open("/proc/self/maps") as maps:
        return sorted({line.split()[-1] for line in maps if "libcudart" in line})


def host_inputs():
    rnd = random.Random(20261122)
    n = B * H * S * D
    return [(ctypes.c_float * n)(*[rnd.uniform(-1, 1) for _ in range(n)]) for _ in range(3)]


def run(lib, backend, q, k, v, out):
    args = FwdArgs(F32, B, H, S, D, D ** -0.5, 1, q, k, v, out, None)
    status = lib.mha_fwd(backend, ctypes.byref(args), None)
    if status != 0:
        lib.mha_last_cuda_error.restype = ctypes.c_char_p
        raise SystemExit("mha_fwd(%d) = %d: %s" % (backend, status, lib.mha_last_cuda_error()))


def main(mode, dist):
    library = dist if dist.endswith(".so") else dist + "/release/libmha.so"
    n = B * H * S * D
    q, k, v = host_inputs()
    if mode == "torch":
        import torch
        torch.zeros(1, device="cuda")  # PyTorch's CUDA runtime is loaded and initialised
        print("before libmha:", cudart_mappings())
        lib = ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        dq, dk, dv = (torch.tensor(list(x), device="cuda").reshape(B, H, S, D) for x in (q, k, v))
        dout = torch.empty_like(dq)
        run(lib, CUDA, dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), dout.data_ptr())
        torch.cuda.synchronize()
        got = dout.flatten().tolist()
    else:
        assert "torch" not in sys.modules
        cuda = ctypes.CDLL("libcuda.so.1")
        dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        for call in (lambda: cuda.cuInit(0), lambda: cuda.cuDeviceGet(ctypes.byref(dev), 0),
                     lambda: cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
                     lambda: cuda.cuCtxSetCurrent(ctx)):
            assert call() == 0
        print("before libmha:", cudart_mappings())
        lib = ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        pointers = []
        for host in (q, k, v, None):
            p = ctypes.c_uint64()
            assert cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(4 * n)) == 0
            if host is not None:
                assert cuda.cuMemcpyHtoD_v2(p, host, ctypes.c_size_t(4 * n)) == 0
            pointers.append(p.value)
        run(lib, CUDA, *pointers)
        assert cuda.cuCtxSynchronize() == 0
        out = (ctypes.c_float * n)()
        assert cuda.cuMemcpyDtoH_v2(out, ctypes.c_uint64(pointers[3]), ctypes.c_size_t(4 * n)) == 0
        got = list(out)
    print("after the CUDA call:", cudart_mappings())
    want = (ctypes.c_float * n)()
    run(lib, CPU_REFERENCE, ctypes.addressof(q), ctypes.addressof(k), ctypes.addressof(v), ctypes.addressof(want))
    error = max(abs(a - b) for a, b in zip(got, want))
    ok = error < 1e-3 and lib.mha_cuda_available() == 1
    print("%s: libmha (stub) CUDA vs CPU reference max |error| %.2e -> %s" % (mode, error, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
