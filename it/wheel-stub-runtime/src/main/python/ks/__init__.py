import ctypes
import os

_lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "libks.so"))


def runtime_version():
    return _lib.ks_runtime_version()
