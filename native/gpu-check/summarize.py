#!/usr/bin/env python3
"""Turns check.py's log into the Markdown tables of docs/gpu-validation.md.
Usage: summarize.py check.log"""
import re
import sys

ERR = re.compile(r"(PASS|FAIL) (\w+)\s+d=(\d+)\s+causal=(\d) b=\d+ h=\d+ s=\d+\s+out (\S+) lse (\S+) dq (\S+) dk (\S+) dv (\S+)"
                 r" \| torch out (\S+) dq (\S+) dk (\S+) dv (\S+)")
TIME = re.compile(r"time s=(\d+) (?:d=(\d+) )?(\w+)\s+causal=(\d)\s+fwd ours (\S+) ms \((\S+) TFLOP/s\) torch (\S+) ms \((\S+)\)\s+"
                  r"bwd ours (\S+) ms \((\S+)\) torch (\S+) ms \((\S+)\)")
FP8_ERR = re.compile(r"(PASS|FAIL) e4m3->(\w+)\s+d=(\d+)\s+causal=(\d) b=\d+ h=\d+ s=\d+\s+out (\S+) lse (\S+)"
                     r" \| torch \w+ out (\S+)")
FP8_TIME = re.compile(r"time-fp8 s=(\d+) d=(\d+) causal=(\d)\s+fwd e4m3 ours (\S+) ms \((\S+) TFLOP/s\) torch f16 (\S+) ms"
                      r" \((\S+)\)")
BOUNDS = {"f32": 1e-4, "f16": 2e-3, "bf16": 1.6e-2}
FP8_BOUND = 6e-2

class Worst:
    """The worst errors of each (dtype, head dim, causal) over the shapes, in first-seen order."""

    def __init__(self):
        self.values, self.passed, self.order = {}, {}, []

    def add(self, m):
        key = (m.group(2), int(m.group(3)), m.group(4) == "1")
        values = [float(x) for x in m.groups()[4:]]
        if key not in self.values:
            self.order.append(key)
            self.values[key], self.passed[key] = values, True
        self.values[key] = [max(a, b) for a, b in zip(self.values[key], values)]
        self.passed[key] &= m.group(1) == "PASS"


errors, fp8_errors, timing, fp8_timing = Worst(), Worst(), [], []
for line in open(sys.argv[1]):
    m = FP8_ERR.search(line)
    if m:
        fp8_errors.add(m)
        continue
    m = FP8_TIME.search(line)
    if m:
        fp8_timing.append(m.groups())
        continue
    m = ERR.search(line)
    if m:
        errors.add(m)
    m = TIME.search(line)
    if m:
        timing.append(m.groups())

print("| dtype | head dim | causal | out | lse (abs) | dq | dk | dv | torch SDPA out / dq / dk / dv | bound out / grads | |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for key in errors.order:
    w, b = errors.values[key], BOUNDS[key[0]]
    print("| %s | %d | %s | %.1e | %.1e | %.1e | %.1e | %.1e | %.1e / %.1e / %.1e / %.1e | %.1e / %.1e | %s |" % (
        key[0], key[1], "yes" if key[2] else "no", *w, b, 2 * b, "PASS" if errors.passed[key] else "FAIL"))
print()
print("| seq | head dim | dtype | causal | fwd ours ms | fwd SDPA ms | fwd: share of SDPA's throughput | bwd ours ms"
      " | bwd SDPA ms | bwd: share | TFLOP/s fwd ours / SDPA | TFLOP/s bwd ours / SDPA |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for s, d, dt, c, of, oft, tf, tft, ob, obt, tb, tbt in timing:
    print("| %s | %s | %s | %s | %s | %s | %.0f %% | %s | %s | %.0f %% | %s / %s | %s / %s |" % (
        s, d or "128", dt, "yes" if c == "1" else "no", of, tf, 100 * float(tf) / float(of), ob, tb,
        100 * float(tb) / float(ob), oft, tft, obt, tbt))
print()
print("| output | head dim | causal | out | lse (abs) | torch SDPA out (same values in the output dtype) | bound out | |")
print("|---|---|---|---|---|---|---|---|")
for key in fp8_errors.order:
    print("| %s | %d | %s | %.1e | %.1e | %.1e | %.1e | %s |" % (key[0], key[1], "yes" if key[2] else "no",
                                                          *fp8_errors.values[key], FP8_BOUND,
                                                          "PASS" if fp8_errors.passed[key] else "FAIL"))
print()
print("| seq | head dim | causal | fwd e4m3 ours ms | fwd f16 SDPA ms | ours / SDPA f16 throughput | TFLOP/s ours / SDPA f16 |")
print("|---|---|---|---|---|---|---|")
for s, d, c, of, oft, tf, tft in fp8_timing:
    print("| %s | %s | %s | %s | %s | %.0f %% | %s / %s |" % (
        s, d, "yes" if c == "1" else "no", of, tf, 100 * float(tf) / float(of), oft, tft))
