#!/usr/bin/env python3
"""Turns `tmux capture-pane -e -p` output (ANSI SGR colours) into a standalone HTML page.

Usage: ansi2html.py CAPTURE.txt OUT.html [--cols N] [--rows N] [--bg #rrggbb] [--fg #rrggbb]
(--bg/--fg: the colours of cells with the terminal default, i.e. Normal.)
Handles 16/256/24-bit colours, bold, italic, underline, reverse and East Asian wide chars.
"""
import html
import re
import sys
import unicodedata

BASE16 = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
          "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"]


def color256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


class State:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.italic = self.underline = self.reverse = False

    def key(self):
        return (self.fg, self.bg, self.bold, self.italic, self.underline, self.reverse)


def apply_sgr(st, params):
    ps = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(ps):
        p = ps[i]
        if p == 0:
            st.reset()
        elif p == 1:
            st.bold = True
        elif p == 3:
            st.italic = True
        elif p == 4:
            st.underline = True
        elif p == 7:
            st.reverse = True
        elif p == 22:
            st.bold = False
        elif p == 23:
            st.italic = False
        elif p == 24:
            st.underline = False
        elif p == 27:
            st.reverse = False
        elif 30 <= p <= 37:
            st.fg = BASE16[p - 30]
        elif p == 39:
            st.fg = None
        elif 40 <= p <= 47:
            st.bg = BASE16[p - 40]
        elif p == 49:
            st.bg = None
        elif 90 <= p <= 97:
            st.fg = BASE16[p - 90 + 8]
        elif 100 <= p <= 107:
            st.bg = BASE16[p - 100 + 8]
        elif p in (38, 48, 58) and i + 1 < len(ps):
            if ps[i + 1] == 5 and i + 2 < len(ps):
                c = color256(ps[i + 2])
                i += 2
            elif ps[i + 1] == 2 and i + 4 < len(ps):
                c = "#%02x%02x%02x" % tuple(ps[i + 2:i + 5])
                i += 4
            else:
                c = None
            if p == 38:
                st.fg = c
            elif p == 48:
                st.bg = c
            # 58 (underline colour) is skipped
        i += 1


def cell_width(ch):
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def main():
    args = sys.argv[1:]
    src, out = args[0], args[1]
    cols = int(args[args.index("--cols") + 1]) if "--cols" in args else 100
    rows = int(args[args.index("--rows") + 1]) if "--rows" in args else None
    opt_bg = args[args.index("--bg") + 1] if "--bg" in args else None
    opt_fg = args[args.index("--fg") + 1] if "--fg" in args else "#d0d0d0"
    text = open(src, encoding="utf-8", errors="replace").read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if rows:
        lines = lines[:rows]
    # First pass: the most common background is the page background.
    parsed = []
    counts = {}
    for line in lines:
        st = State()
        row = []
        for m in re.finditer(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|([^\x1b])", line):
            if m.group(2) is not None:
                row.append((m.group(2), st.key()))
                counts[st.bg] = counts.get(st.bg, 0) + 1
            elif m.group(1) is not None or m.group(0).endswith("m"):
                apply_sgr(st, m.group(1))
        parsed.append(row)
    page_bg = opt_bg or max((c for c in counts.items() if c[0]), key=lambda c: c[1], default=("#1e1e1e", 0))[0]
    page_fg = opt_fg
    out_lines = []
    for row in parsed:
        spans = []
        width = 0
        cur, buf = None, []
        for ch, key in row + [("", None)]:
            if key != cur:
                if buf:
                    fg, bg, bold, italic, underline, reverse = cur
                    f, b = fg or page_fg, bg or page_bg
                    if reverse:
                        f, b = b, f
                    style = "color:%s;background:%s" % (f, b)
                    if bold:
                        style += ";font-weight:bold"
                    if italic:
                        style += ";font-style:italic"
                    if underline:
                        style += ";text-decoration:underline"
                    spans.append('<span style="%s">%s</span>' % (style, html.escape("".join(buf))))
                cur, buf = key, []
            if ch:
                buf.append(ch)
                width += cell_width(ch)
        if width < cols:
            spans.append(" " * (cols - width))
        out_lines.append("".join(spans))
    page = """<!doctype html><html><head><meta charset="utf-8"><style>
html,body{margin:0;padding:0;background:%s}
pre{margin:0;padding:10px 12px;font:14px/17px 'DejaVu Sans Mono',monospace;color:%s;white-space:pre}
span{display:inline-block;vertical-align:top;height:17px}
</style></head><body><pre>%s</pre></body></html>
""" % (page_bg, page_fg, "\n".join(out_lines))
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)


if __name__ == "__main__":
    main()
