#!/usr/bin/env python3
"""A stand-in for `gloss lsp` used by the Neovim plugin tests.

Speaks just enough LSP over stdio: initialize, code lenses, and the gloss
workspace/executeCommand commands, with memories kept in memory. Every request and
notification it receives is appended as one JSON line to $FAKE_GLOSS_LOG.
"""
import json
import os
import sys
from urllib.parse import unquote, urlparse

LOG = os.environ.get("FAKE_GLOSS_LOG")
COMMANDS = [
    "gloss.remember", "gloss.memoriesAt", "gloss.list", "gloss.check", "gloss.show",
    "gloss.update", "gloss.verify", "gloss.forget", "gloss.showMemories", "gloss.status",
    "gloss.search",
]

memories = {
    "m-fresh": {
        "id": "m-fresh", "title": "Fresh one", "type": "convention", "body": "Use the helper.",
        "stale": False,
        "anchors": [{"path": "main.go", "symbol": "scip-go . . . main().", "start_line": 1,
                     "end_line": 2, "status": "fresh"}],
    },
    "m-stale": {
        "id": "m-stale", "title": "Stale one", "type": "gotcha", "body": "Hold the lock.\nAlways.",
        "stale": True,
        "anchors": [{"path": "main.go", "symbol": "scip-go . . . f().", "start_line": 3,
                     "end_line": 3, "status": "signature_changed"}],
    },
}
counter = [0]


def log(entry):
    if LOG:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def read_message():
    headers = {}
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.decode("ascii").strip()
        if not line:
            break
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    body = sys.stdin.buffer.read(int(headers["content-length"]))
    return json.loads(body)


def send(msg):
    data = json.dumps(msg).encode("utf-8")
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
    sys.stdout.buffer.flush()


def execute(command, args):
    arg = args[0] if args else {}
    if command == "gloss.remember":
        counter[0] += 1
        mid = "m-new-%d" % counter[0]
        r = arg["range"]
        m = {
            "id": mid, "title": arg.get("title") or (arg.get("text") or "draft").split("\n")[0],
            "type": arg.get("type", "note"), "body": arg.get("text", ""), "stale": False,
            # Like gloss, report paths relative to the project (test files sit at its root).
            "anchors": [{"path": os.path.basename(unquote(urlparse(arg["uri"]).path)), "symbol": "", "start_line": r["start"]["line"] + 1,
                         "end_line": r["end"]["line"] + 1, "status": "fresh"}],
        }
        memories[mid] = m
        return m
    if command in ("gloss.list", "gloss.check"):
        return {"memories": [m for m in memories.values() if not arg.get("stale") or m["stale"]]}
    if command == "gloss.search":
        q = arg.get("query", "").lower()
        return {"memories": [m for m in memories.values()
                             if q in m["title"].lower() or q in m["body"].lower()]}
    if command == "gloss.memoriesAt":
        line = arg["range"]["start"]["line"] + 1
        return {"memories": [m for m in memories.values()
                             if any(a["start_line"] <= line <= a["end_line"] for a in m["anchors"])]}
    if command == "gloss.status":
        stale = sum(1 for m in memories.values() if m["stale"])
        return {"memories": len(memories), "stale": stale, "files": 1, "symbols": len(memories)}
    if command == "gloss.show":
        return memories.get(arg.get("id"))
    if command == "gloss.verify":
        m = memories[arg["id"]]
        m["stale"] = False
        for a in m["anchors"]:
            a["status"] = "fresh"
        return m
    if command == "gloss.update":
        m = memories[arg["id"]]
        for k in ("text", "title", "type", "tags"):
            if k in arg:
                m["body" if k == "text" else k] = arg[k]
        return m
    if command == "gloss.forget":
        memories.pop(arg["id"], None)
        return {"forgotten": arg["id"]}
    raise KeyError(command)


def main():
    while True:
        msg = read_message()
        if msg is None:
            return
        log(msg)
        method = msg.get("method")
        mid = msg.get("id")
        if method is None:
            continue  # a response to something we sent
        if method == "exit":
            return
        if mid is None:
            continue  # notification
        result = None
        error = None
        if method == "initialize":
            result = {
                "capabilities": {
                    "textDocumentSync": 1,
                    "hoverProvider": True,
                    "codeLensProvider": {"resolveProvider": False},
                    "executeCommandProvider": {"commands": COMMANDS},
                },
                "serverInfo": {"name": "fake-gloss", "version": "0"},
            }
        elif method == "textDocument/codeLens":
            uri = msg["params"]["textDocument"]["uri"]
            rng = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
            result = [{"range": rng, "command": {"title": "1 memory", "command": "gloss.showMemories",
                                                 "arguments": [{"uri": uri, "range": rng}]}}]
        elif method == "workspace/executeCommand":
            try:
                result = execute(msg["params"]["command"], msg["params"].get("arguments") or [])
            except KeyError as e:
                error = {"code": -32602, "message": "unknown: %s" % e}
        elif method == "shutdown":
            result = None
        else:
            error = {"code": -32601, "message": "method not found: " + method}
        if error:
            send({"jsonrpc": "2.0", "id": mid, "error": error})
        else:
            send({"jsonrpc": "2.0", "id": mid, "result": result})


if __name__ == "__main__":
    main()
