package main

import (
	"context"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/gloss-dev/gloss/api"
)

// withProgressBar returns ctx carrying an api.Progress that draws a
// progress bar of unit (e.g. "files") on standard error, and a function
// that ends the bar; when standard error is not a terminal or --json is
// on, ctx is returned unchanged and nothing is drawn.
func withProgressBar(ctx context.Context, g *globals, unit string) (context.Context, func()) {
	if g.json || !term.IsTerminal(int(os.Stderr.Fd())) {
		return ctx, func() {}
	}
	var bar *progressbar.ProgressBar
	ctx = api.WithProgress(ctx, func(done, total int) {
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
	})
	return ctx, func() {
		if bar != nil {
			_ = bar.Finish()
		}
	}
}
