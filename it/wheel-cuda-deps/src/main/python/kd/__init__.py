import ctypes
import os

_lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "libkd.so"))


def info():
    return _lib.kd_info()
