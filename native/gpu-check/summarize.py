#!/usr/bin/env python3
"""Turns check.py's log into the Markdown tables of docs/gpu-validation.md.
Usage: summarize.py check.log"""
import re
import sys

ERR = re.compile(r"(PASS|FAIL) (\w+)\s+d=(\d+)\s+causal=(\d) b=\d+ h=\d+ s=\d+\s+out (\S+) lse (\S+) dq (\S+) dk (\S+) dv (\S+)"
                 r" \| torch out (\S+) dq (\S+) dk (\S+) dv (\S+)")
TIME = re.compile(r"time s=(\d+) (?:d=(\d+) )?(\w+)\s+causal=(\d)\s+fwd ours (\S+) ms \((\S+) TFLOP/s\) torch (\S+) ms \((\S+)\)\s+"
                  r"bwd ours (\S+) ms \((\S+)\) torch (\S+) ms \((\S+)\)")
BOUNDS = {"f32": 1e-4, "f16": 2e-3, "bf16": 1.6e-2}

worst, verdict, order = {}, {}, []
timing = []
for line in open(sys.argv[1]):
    m = ERR.search(line)
    if m:
        key = (m.group(2), int(m.group(3)), m.group(4) == "1")
        values = [float(x) for x in m.groups()[4:]]
        if key not in worst:
            order.append(key)
            worst[key], verdict[key] = values, True
        worst[key] = [max(a, b) for a, b in zip(worst[key], values)]
        verdict[key] &= m.group(1) == "PASS"
    m = TIME.search(line)
    if m:
        timing.append(m.groups())

print("| dtype | head dim | causal | out | lse (abs) | dq | dk | dv | torch SDPA out / dq / dk / dv | bound out / grads | |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for key in order:
    w, b = worst[key], BOUNDS[key[0]]
    print("| %s | %d | %s | %.1e | %.1e | %.1e | %.1e | %.1e | %.1e / %.1e / %.1e / %.1e | %.1e / %.1e | %s |" % (
        key[0], key[1], "yes" if key[2] else "no", *w, b, 2 * b, "PASS" if verdict[key] else "FAIL"))
print()
print("| seq | head dim | dtype | causal | fwd ours ms | fwd SDPA ms | fwd: share of SDPA's throughput | bwd ours ms"
      " | bwd SDPA ms | bwd: share | TFLOP/s fwd ours / SDPA | TFLOP/s bwd ours / SDPA |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for s, d, dt, c, of, oft, tf, tft, ob, obt, tb, tbt in timing:
    print("| %s | %s | %s | %s | %s | %s | %.0f %% | %s | %s | %.0f %% | %s / %s | %s / %s |" % (
        s, d or "128", dt, "yes" if c == "1" else "no", of, tf, 100 * float(tf) / float(of), ob, tb,
        100 * float(tb) / float(ob), oft, tft, obt, tbt))
