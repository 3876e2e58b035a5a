package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Gloss runs the gloss binary under evaluation.
type Gloss struct {
	// Bin is the path of the gloss binary.
	Bin string
	// Dir is the working directory (the clone's root).
	Dir string
	// Home is GLOSS_HOME for every invocation.
	Home string
	// Env is the base environment (GLOSS_HOME is added).
	Env []string
	// Timeout bounds each invocation.
	Timeout time.Duration
	// Timings accumulates wall time per verb.
	Timings map[string]time.Duration

	forgetOneByOne bool // set once `gloss forget` refused several ids
}

// run runs gloss with args and returns standard output.
func (g *Gloss) run(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.Bin, args...)
	cmd.Dir = g.Dir
	cmd.Env = append(slicesClone(g.Env), "GLOSS_HOME="+g.Home)
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	// Do not wait for grandchildren (for example a daemon) holding the
	// pipes open.
	cmd.WaitDelay = 5 * time.Second
	t0 := time.Now()
	err := cmd.Run()
	if g.Timings != nil && len(args) > 0 {
		g.Timings[args[0]] += time.Since(t0)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[len(msg)-2000:]
		}
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("timed out after %v", g.Timeout)
		}
		return stdout.Bytes(), fmt.Errorf("gloss %s: %v: %s", strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// Version returns gloss's version output, or "" when it has none.
func (g *Gloss) Version(ctx context.Context) string {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if out, err := g.run(ctx, args...); err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	return ""
}

// Index runs `gloss index`.
func (g *Gloss) Index(ctx context.Context) error {
	_, err := g.run(ctx, "index")
	return err
}

// RememberRequest is one line of a `gloss remember --batch` file.
type RememberRequest struct {
	Text  string `json:"text"`
	At    string `json:"at"`
	Title string `json:"title"`
}

// RememberResult is gloss's answer for one batch line: an id or an error.
type RememberResult struct {
	ID    string
	Error string
}

// Remember creates the memories of reqs through one `gloss remember --batch
// FILE --json` call and returns one result per request, in order.
func (g *Gloss) Remember(ctx context.Context, reqs []RememberRequest) ([]RememberResult, error) {
	f, err := os.CreateTemp(g.Home, "batch-*.jsonl")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, r := range reqs {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	out, runErr := g.run(ctx, "remember", "--batch", f.Name(), "--json")
	results, err := parseRememberOutput(out)
	if err != nil || len(results) != len(reqs) {
		if runErr != nil {
			return nil, runErr
		}
		if err == nil {
			err = fmt.Errorf("gloss remember --batch printed %d results for %d lines", len(results), len(reqs))
		}
		return nil, err
	}
	// A non-zero exit with one result per line is a partial failure whose
	// errors are in the results.
	return results, nil
}

// decodeJSONValues decodes a stream of JSON values (JSON lines, a JSON
// array, or concatenated objects); arrays are flattened.
func decodeJSONValues(out []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	var vals []json.RawMessage
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return vals, nil
		}
		if err != nil {
			return vals, fmt.Errorf("decoding gloss output: %v", err)
		}
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			var arr []json.RawMessage
			if err := json.Unmarshal(t, &arr); err != nil {
				return vals, err
			}
			vals = append(vals, arr...)
			continue
		}
		vals = append(vals, raw)
	}
}

func parseRememberOutput(out []byte) ([]RememberResult, error) {
	vals, err := decodeJSONValues(out)
	if err != nil {
		return nil, err
	}
	var results []RememberResult
	for _, v := range vals {
		var o struct {
			ID     string          `json:"id"`
			Error  json.RawMessage `json:"error"`
			Memory *struct {
				ID string `json:"id"`
			} `json:"memory"`
		}
		if err := json.Unmarshal(v, &o); err != nil {
			return nil, fmt.Errorf("gloss remember: unexpected output %s", v)
		}
		r := RememberResult{ID: o.ID}
		if r.ID == "" && o.Memory != nil {
			r.ID = o.Memory.ID
		}
		if len(o.Error) > 0 && string(o.Error) != "null" {
			var s string
			if json.Unmarshal(o.Error, &s) != nil {
				s = string(o.Error)
			}
			if s != "" {
				r.Error = s
			}
		}
		if r.ID == "" && r.Error == "" {
			r.Error = "no id in " + string(v)
		}
		results = append(results, r)
	}
	return results, nil
}

// CheckAnchor is one anchor of `gloss check --json`.
type CheckAnchor struct {
	Path      string `json:"path"`
	Symbol    string `json:"symbol"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Status    string `json:"status"`
}

// CheckMemory is one memory of `gloss check --json`.
type CheckMemory struct {
	ID      string        `json:"id"`
	Title   string        `json:"title"`
	Stale   bool          `json:"stale"`
	Anchors []CheckAnchor `json:"anchors"`
}

// Check runs `gloss check --json` and returns the memories by id.
func (g *Gloss) Check(ctx context.Context) (map[string]CheckMemory, error) {
	out, err := g.run(ctx, "check", "--json")
	if err != nil {
		// Some CLIs exit non-zero when something is stale; accept the
		// output when it parses.
		if m, perr := parseCheckOutput(out); perr == nil && len(m) > 0 {
			return m, nil
		}
		return nil, err
	}
	return parseCheckOutput(out)
}

func parseCheckOutput(out []byte) (map[string]CheckMemory, error) {
	var doc struct {
		Memories []CheckMemory `json:"memories"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &doc); err != nil {
		return nil, fmt.Errorf("gloss check --json: %v", err)
	}
	m := make(map[string]CheckMemory, len(doc.Memories))
	for _, mem := range doc.Memories {
		m[mem.ID] = mem
	}
	return m, nil
}

// Forget deletes memories: many ids per call when gloss accepts that, else
// one call per id. It returns the number of ids that could not be deleted.
func (g *Gloss) Forget(ctx context.Context, ids []string) int {
	failed := 0
	for len(ids) > 0 {
		n := min(len(ids), 100)
		chunk := ids[:n]
		ids = ids[n:]
		if len(chunk) > 1 && !g.forgetOneByOne {
			if _, err := g.run(ctx, append([]string{"forget"}, chunk...)...); err == nil {
				continue
			}
			g.forgetOneByOne = true
		}
		for _, id := range chunk {
			if _, err := g.run(ctx, "forget", id); err != nil {
				failed++
			}
		}
	}
	return failed
}

// glossPrediction turns a checked memory into a prediction: stale when any
// anchor is changed, signature_changed or deleted; located by its first
// anchor.
// Absolute anchor paths are made relative to root.
func glossPrediction(root, id string, m CheckMemory) *Prediction {
	p := &Prediction{ID: id, Stale: m.Stale}
	if len(m.Anchors) == 0 {
		p.Status = "no_anchor"
		return p
	}
	p.Stale = false
	for _, a := range m.Anchors {
		if isStaleStatus(a.Status) {
			p.Stale = true
		}
	}
	a := m.Anchors[0]
	p.Status = a.Status
	p.Path = a.Path
	if filepath.IsAbs(p.Path) {
		if rel, err := filepath.Rel(root, p.Path); err == nil {
			p.Path = rel
		}
	}
	p.Path = filepath.ToSlash(p.Path)
	p.Start, p.End = a.StartLine, a.EndLine
	return p
}
