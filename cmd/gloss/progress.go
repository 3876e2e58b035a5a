package main

import (
	"os"
	"time"

	"github.com/gloss-dev/gloss/memory"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// withProgressBar makes the long command b runs next (index,
// import-git) draw a progress bar of unit (e.g. "files") on standard
// error, through api.Engine.Progress, then one of the re-embedding that
// index may run (api.Engine.Reembed, reembedBar), and returns a function
// that ends the bars. Nothing is drawn when standard error is not a terminal, --json is
// on, or b is a daemon connection (its commands report no progress).
func withProgressBar(b *backend, g *globals, unit string) func() {
	if b.engine == nil || g.json || !term.IsTerminal(int(os.Stderr.Fd())) {
		return func() {}
	}
	var bar *progressbar.ProgressBar
	b.engine.Progress = func(done, total int) {
		if total == 0 {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr),
				progressbar.OptionSetDescription(unit), progressbar.OptionShowCount(),
				progressbar.OptionShowIts(), progressbar.OptionSetItsString(unit),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	}
	var rbar *progressbar.ProgressBar // the re-embedding's (reembedBar)
	var rphase string
	b.engine.Reembed = func(st memory.ReembedStatus, running bool) {
		if bar != nil { // the files are parsed: the re-embedding follows
			_ = bar.Finish()
			bar = nil
		}
		rbar, rphase = reembedBar(rbar, rphase, st, running)
	}
	return func() {
		b.engine.Progress, b.engine.Reembed = nil, nil
		if bar != nil {
			_ = bar.Finish()
		}
		if rbar != nil {
			_ = rbar.Finish()
		}
	}
}

// reembedBar draws the progress of a re-embedding of the vector index
// (memory.Workspace.WatchReembed) on standard error: a spinner while the
// built-in model is trained, then a bar of the memories embedded with the
// new model, whose description carries a remote server's last error while
// the re-embedding retries. It returns the bar to pass to the next call
// and its phase; the bar is finished when running is false.
func reembedBar(bar *progressbar.ProgressBar, phase string, st memory.ReembedStatus, running bool) (*progressbar.ProgressBar, string) {
	if bar != nil && (phase != st.Phase || !running) {
		_ = bar.Finish()
		bar = nil
	}
	if !running {
		return nil, ""
	}
	desc := "re-embedding memories with " + termSafe(st.Model, false)
	if st.Error != "" {
		desc += " (retrying: " + termSafe(st.Error, false) + ")"
	}
	if bar == nil {
		total := st.Total
		if st.Phase == "training" {
			total, desc = -1, "training the built-in model"
		}
		bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(),
			progressbar.OptionShowIts(), progressbar.OptionSetItsString("memories"),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	} else if st.Phase != "training" {
		bar.Describe(desc)
	}
	if st.Phase != "training" {
		_ = bar.Set(st.Done)
	}
	return bar, st.Phase
}
