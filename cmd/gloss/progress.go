package main

import (
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// withProgressBar makes the long command b runs next (index,
// import-git) draw a progress bar of unit (e.g. "files") on standard
// error, through api.Engine.Progress, and returns a function that ends the
// bar. Nothing is drawn when standard error is not a terminal, --json is
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
	return func() {
		b.engine.Progress = nil
		if bar != nil {
			_ = bar.Finish()
		}
	}
}
