#!/usr/bin/env python3
"""Measure a gloss language server on a real workspace (docs/benchmarks.md).

Starts `BIN --no-daemon lsp` in ROOT with GLOSS_HOME=HOME, initializes it
as an editor would (work-done progress on), waits until its start-up work
is done (its CPU time flat for a second), prints the CPU seconds and peak
RSS so far and the diagnostics it published (files, count, md5 of their
JSON), then optionally times an empty workspace/symbol query (--symbol)
and gloss.list (--list; one page of N with --list-limit N), opens a file and times a hover at a 0-based line (twice)
and its code lenses (--open PATH:LINE, repeatable; the hover at the line's first
non-blank character), and finally a gloss.remember on --remember
PATH:FIRST:LAST (0-based lines, end exclusive) and the CPU the server
spends until it is idle again (republishing diagnostics and lenses).

Usage: scripts/lsp-probe.py BIN HOME ROOT [--symbol] [--list [--list-limit N]] [--open promql/parser/printer.go:85] [--remember promql/parser/printer.go:85:89]

Uses only the Python standard library; Linux only (/proc). Work on a copy
of HOME: the remember writes to it.
"""
import argparse, hashlib, json, os, subprocess, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("bin"); ap.add_argument("home"); ap.add_argument("root")
ap.add_argument("--symbol", action="store_true"); ap.add_argument("--list", action="store_true")
ap.add_argument("--remember", default=""); ap.add_argument("--open", action="append", default=[])
ap.add_argument("--list-limit", type=int, default=0)
a = ap.parse_args()
root = os.path.abspath(a.root)
p = subprocess.Popen([a.bin, "--no-daemon", "lsp"], cwd=root, env=dict(os.environ, GLOSS_HOME=a.home),
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
msgs, lock = [], threading.Lock()

def cpu():
    f = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

def peak():
    for line in open(f"/proc/{p.pid}/status"):
        if line.startswith("VmHWM"):
            return line.split()[1] + " KiB peak RSS"

def send(m):
    b = json.dumps(m).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    p.stdin.flush()

def reader():
    while True:
        h = b""
        while not h.endswith(b"\r\n\r\n"):
            c = p.stdout.read(1)
            if not c:
                return
            h += c
        n = int([l for l in h.decode().split("\r\n") if l.lower().startswith("content-length")][0].split(":")[1])
        m = json.loads(p.stdout.read(n))
        with lock:
            msgs.append((time.time(), m))
        if "id" in m and "method" in m:  # a request of the server: answer it
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})

def wait(i, timeout=300):
    end = time.time() + timeout
    while time.time() < end:
        with lock:
            for ts, m in msgs:
                if m.get("id") == i and "method" not in m:
                    return ts, m
        time.sleep(0.01)
    raise SystemExit(f"no answer to request {i}")

def idle(step):
    prev = -1.0
    while True:
        time.sleep(step)
        c = cpu()
        if c - prev < 0.02 * step * 2:
            return
        prev = c

threading.Thread(target=reader, daemon=True).start()
t0 = time.time()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": os.getpid(), "rootUri": "file://" + root,
      "capabilities": {"window": {"workDoneProgress": True}}}})
wait(1)
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
time.sleep(2)
idle(1)
print(f"start: idle after {time.time() - t0:.1f} s, {cpu():.2f} CPU-s, {peak()}")
last = {}
with lock:
    for _, m in msgs:
        if m.get("method") == "textDocument/publishDiagnostics":
            last[m["params"]["uri"]] = m["params"]["diagnostics"]
nz = {u: d for u, d in last.items() if d}
print(f"diagnostics: {len(nz)} files, {sum(len(d) for d in nz.values())} diagnostics, md5 {hashlib.md5(json.dumps(nz, sort_keys=True).encode()).hexdigest()}")
rid = 10
for flag, method, params in [(a.symbol, "workspace/symbol", {"query": ""}),
                             (a.list, "workspace/executeCommand", {"command": "gloss.list", "arguments": [{"limit": a.list_limit} if a.list_limit else {}]})]:
    if not flag:
        continue
    rid += 1
    c0, t1 = cpu(), time.time()
    send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    ts, m = wait(rid)
    r = m.get("result")
    if isinstance(r, dict):
        r = r.get("memories") or []
        for v in r:
            v.pop("confidence", None)  # computed at the time of the call
    print(f"{method} {params.get('command', '')}: {len(r or [])} results in {ts - t1:.3f} s, +{cpu() - c0:.2f} CPU-s, {peak()}, "
          f"md5 {hashlib.md5(json.dumps(r, sort_keys=True).encode()).hexdigest()}, error {m.get('error')}")
rid = 20
for spec in a.open:
    path, line = spec.rsplit(":", 1)
    uri, line = "file://" + os.path.join(root, path), int(line)
    text = open(os.path.join(root, path), encoding="utf-8").read()
    col = len(text.split("\n")[line]) - len(text.split("\n")[line].lstrip())
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "go" if path.endswith(".go") else "python", "version": 1, "text": text}}})
    hover = ("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}})
    for method, params in [hover, ("textDocument/codeLens", {"textDocument": {"uri": uri}}), hover]:
        rid += 1
        c0, t1 = cpu(), time.time()
        send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        ts, m = wait(rid)
        r = m.get("result")
        size = len(json.dumps(r))
        n = len(r) if isinstance(r, list) else (1 if r else 0)
        print(f"{method} {path}:{line}: {n} results ({size} bytes) in {ts - t1:.3f} s, +{cpu() - c0:.2f} CPU-s, error {m.get('error')}")
    idle(0.5)
if a.remember:
    path, first, last = a.remember.rsplit(":", 2)
    c0, t1 = cpu(), time.time()
    send({"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand", "params": {"command": "gloss.remember", "arguments": [
        {"uri": "file://" + os.path.join(root, path), "range": {"start": {"line": int(first), "character": 0}, "end": {"line": int(last), "character": 0}},
         "text": "lsp-probe memory", "type": "gotcha"}]}})
    ts, m = wait(2)
    print(f"gloss.remember answered in {ts - t1:.3f} s, error {m.get('error')}")
    idle(0.5)
    print(f"after the remember: +{cpu() - c0:.2f} CPU-s until idle ({time.time() - t1:.1f} s), {peak()}")
send({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
wait(3)
send({"jsonrpc": "2.0", "method": "exit"})
p.wait(10)
