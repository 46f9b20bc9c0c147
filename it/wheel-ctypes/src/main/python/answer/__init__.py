"""ctypes wrapper of libanswer.so: the wheel's generated loader (_native.py) opens it."""
from ._native import lib
answer = lib.answer
