#!/usr/bin/env python3
"""Renders a Kernel Archive trace.json (Chrome trace events) as an SVG timeline: one row per
lane (the build thread, each compile and ar worker), one bar per slice, coloured by category.
   render-trace.py target/kernel/trace.json timeline.svg  (then: rsvg-convert timeline.svg > timeline.png)
Python's standard library only: the point is a picture anyone can make without Perfetto."""
import json
import sys
from html import escape

COLOURS = {"compile": "#4e79a7", "ar": "#f28e2b", "archive": "#e15759", "cache": "#76b7b2",
           "link": "#59a14f", "build": "#b07aa1"}


def main(source, target):
    events = json.load(open(source))["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in events if e["ph"] == "X"]
    lanes = sorted({e["tid"] for e in slices})
    end = max(e["ts"] + e["dur"] for e in slices)
    width, left, row, top = 1400, 190, 26, 40
    scale = (width - left - 20) / end
    height = top + row * len(lanes) + 60
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="22" font-size="14">Kernel Archive build timeline ({end / 1e6:.2f} s)</text>']
    for i, lane in enumerate(lanes):
        y = top + i * row
        out.append(f'<text x="10" y="{y + 17}">{escape(names.get(lane, str(lane)))}</text>')
        out.append(f'<line x1="{left}" y1="{y + row - 2}" x2="{width - 20}" y2="{y + row - 2}" stroke="#eee"/>')
        for e in (s for s in slices if s["tid"] == lane):
            x, w = left + e["ts"] * scale, max(1.0, e["dur"] * scale)
            colour = COLOURS.get(e["cat"], "#999")
            out.append(f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row - 8}" fill="{colour}" stroke="white">'
                       f'<title>{escape(e["name"])} ({e["dur"] / 1e3:.1f} ms)</title></rect>')
            if w > 60:
                label = e["name"] if len(e["name"]) * 6 < w else e["name"][: max(1, int(w / 6) - 1)] + "…"
                out.append(f'<text x="{x + 3:.1f}" y="{y + 17}" fill="white">{escape(label)}</text>')
    step = max(1, int(80 / (1e6 * scale)) + 1)  # seconds between labels, at least 80 px apart
    for s in range(0, int(end / 1e6) + 1, step):
        x = left + s * 1e6 * scale
        out.append(f'<text x="{x:.1f}" y="{height - 30}" fill="#666">{s} s</text>')
    for i, (category, colour) in enumerate(COLOURS.items()):
        out.append(f'<rect x="{left + i * 110}" y="{height - 20}" width="12" height="12" fill="{colour}"/>'
                   f'<text x="{left + i * 110 + 16}" y="{height - 10}">{category}</text>')
    out.append("</svg>")
    open(target, "w").write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
