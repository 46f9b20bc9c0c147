"""ctypes binding of libsum.so, which the wheel carries beside this file."""
import ctypes
import pathlib

_lib = ctypes.CDLL(str(pathlib.Path(__file__).with_name("libsum.so")))
_lib.sum_roots.restype = ctypes.c_double
_lib.sum_roots.argtypes = [ctypes.c_long]
_lib.sum_machine.restype = ctypes.c_char_p


def roots(n):
    return _lib.sum_roots(n)


def machine():
    return _lib.sum_machine().decode()
