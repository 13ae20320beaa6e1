"""The report of a fault run: a text file and an SVG timeline (faults,
acknowledgements and failures per second, anomalies)."""
from __future__ import annotations

import collections
import html
import math


def svg_timeline(history: list, faults: list, anomalies: list, title: str,
                 duration: float) -> str:
    end = max([duration] + [e["t"] for e in history]) if history else duration
    end = max(end, 1.0)
    width, left, right = 1000, 60, 20
    plot_w = width - left - right
    fault_rows = sorted({f["kind"] for f in faults}) or ["(none)"]
    row_h = 18
    top = 30
    chart_top = top + row_h * len(fault_rows) + 20
    chart_h = 160
    height = chart_top + chart_h + 60

    def x(t: float) -> float:
        return left + plot_w * t / end

    acks = collections.Counter(int(e["t"]) for e in history if e["type"] == "ack")
    fails = collections.Counter(int(e["t"]) for e in history if e["type"] == "fail")
    peak = max(list(acks.values()) + list(fails.values()) + [1])
    scale = chart_h / peak

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="18" font-size="13">{html.escape(title)}</text>']
    for i, kind in enumerate(fault_rows):
        y = top + i * row_h
        out.append(f'<text x="4" y="{y + 12}">{html.escape(kind)}</text>')
    for f in faults:
        i = fault_rows.index(f["kind"])
        y = top + i * row_h
        out.append(f'<rect x="{x(f["start"]):.1f}" y="{y}" width="{max(1, x(f["end"]) - x(f["start"])):.1f}" '
                   f'height="{row_h - 4}" fill="#f4a261" opacity="0.8">'
                   f'<title>{html.escape(f["kind"] + " " + f.get("detail", ""))} '
                   f'{f["start"]:.1f}s-{f["end"]:.1f}s</title></rect>')
        w = x(f["end"]) - x(f["start"])
        label = f.get("detail", "")[: max(0, int(w / 5.0))]
        if label:
            out.append(f'<text x="{x(f["start"]) + 2:.1f}" y="{y + 10}" font-size="9">'
                       f'{html.escape(label)}</text>')
        out.append(f'<rect x="{x(f["start"]):.1f}" y="{chart_top}" '
                   f'width="{max(1, x(f["end"]) - x(f["start"])):.1f}" height="{chart_h}" '
                   f'fill="#f4a261" opacity="0.15"/>')
    base = chart_top + chart_h
    bar_w = max(1.0, plot_w / end - 1)
    for sec, n in sorted(acks.items()):
        h = n * scale
        out.append(f'<rect x="{x(sec):.1f}" y="{base - h:.1f}" width="{bar_w:.1f}" '
                   f'height="{h:.1f}" fill="#2a9d8f"><title>{sec}s: {n} acks</title></rect>')
    for sec, n in sorted(fails.items()):
        h = n * scale
        out.append(f'<rect x="{x(sec) + bar_w / 3:.1f}" y="{base - h:.1f}" '
                   f'width="{max(1.0, bar_w / 3):.1f}" height="{h:.1f}" fill="#e76f51">'
                   f'<title>{sec}s: {n} failed sends</title></rect>')
    for a in anomalies:
        if a.get("t") is None:
            continue
        out.append(f'<line x1="{x(a["t"]):.1f}" y1="{chart_top - 6}" x2="{x(a["t"]):.1f}" '
                   f'y2="{base}" stroke="#d00000" stroke-width="1.5">'
                   f'<title>{html.escape(a["kind"] + ": " + a["message"])}</title></line>')
    out.append(f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="black"/>')
    out.append(f'<line x1="{left}" y1="{chart_top}" x2="{left}" y2="{base}" stroke="black"/>')
    out.append(f'<text x="4" y="{chart_top + 10}">{peak}/s</text>')
    step = max(1, int(math.ceil(end / 20)))
    for s in range(0, int(end) + 1, step):
        out.append(f'<text x="{x(s) - 4:.1f}" y="{base + 14}">{s}</text>')
    legend_y = base + 36
    out.append(f'<rect x="{left}" y="{legend_y - 9}" width="10" height="10" fill="#2a9d8f"/>'
               f'<text x="{left + 14}" y="{legend_y}">acks per second</text>'
               f'<rect x="{left + 130}" y="{legend_y - 9}" width="10" height="10" fill="#e76f51"/>'
               f'<text x="{left + 144}" y="{legend_y}">failed sends per second</text>'
               f'<rect x="{left + 300}" y="{legend_y - 9}" width="10" height="10" fill="#f4a261"/>'
               f'<text x="{left + 314}" y="{legend_y}">fault</text>'
               f'<line x1="{left + 360}" y1="{legend_y - 9}" x2="{left + 360}" y2="{legend_y + 1}" '
               f'stroke="#d00000" stroke-width="2"/>'
               f'<text x="{left + 366}" y="{legend_y}">anomaly ({len(anomalies)})</text>'
               f'<text x="{width - 120}" y="{legend_y}">seconds</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
