"""ctypes binding of libmha.so, the attention kernels' C API (mha.h), shipped beside this file.

Only what a first call needs: the library's identity and the forward pass on float32 buffers.
The CUDA backend takes device pointers (e.g. torch.Tensor.data_ptr()) and a stream.
"""
import ctypes

from ._native import lib as _lib  # the loader the wheel goal writes: libmha.so from this folder

F32, F16, BF16 = 0, 1, 2
CPU_REFERENCE, CPU_BLOCKED, CUDA = 0, 1, 2


class FwdArgs(ctypes.Structure):
    """mha_fwd_args: [batch, heads, seq_len, head_dim] tensors, contiguous."""
    _fields_ = [
        ("dtype", ctypes.c_int),
        ("batch", ctypes.c_int), ("heads", ctypes.c_int), ("seq_len", ctypes.c_int), ("head_dim", ctypes.c_int),
        ("scale", ctypes.c_float),
        ("causal", ctypes.c_int),
        ("q", ctypes.c_void_p), ("k", ctypes.c_void_p), ("v", ctypes.c_void_p),
        ("out", ctypes.c_void_p),
        ("lse", ctypes.POINTER(ctypes.c_float)),
    ]


_lib.mha_version.restype = ctypes.c_char_p
_lib.mha_status_string.restype = ctypes.c_char_p
_lib.mha_fwd.argtypes = [ctypes.c_int, ctypes.POINTER(FwdArgs), ctypes.c_void_p]


def version():
    return _lib.mha_version().decode()


def cuda_available():
    return bool(_lib.mha_cuda_available())


def fwd(backend, args, stream=None):
    """Runs mha_fwd; raises RuntimeError with the library's description of a failure."""
    status = _lib.mha_fwd(backend, ctypes.byref(args), stream)
    if status != 0:
        raise RuntimeError("mha_fwd: " + _lib.mha_status_string(status).decode())


def attention_cpu(q, k, v, batch, heads, seq_len, head_dim, causal=False):
    """The forward on the CPU for flat lists of floats; returns the output as a list."""
    n = batch * heads * seq_len * head_dim
    buffers = [(ctypes.c_float * n)(*x) for x in (q, k, v)]
    out = (ctypes.c_float * n)()
    args = FwdArgs(F32, batch, heads, seq_len, head_dim, head_dim ** -0.5, int(causal),
                   *(ctypes.cast(b, ctypes.c_void_p) for b in buffers), ctypes.cast(out, ctypes.c_void_p), None)
    fwd(CPU_BLOCKED, args)
    return list(out)
