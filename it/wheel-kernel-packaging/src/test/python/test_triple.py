import kp

assert kp.triple(14) == 42
