package index

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	ts "github.com/odvcencio/gotreesitter"
)

// withParseTimeout sets ParseTimeout for one test.
func withParseTimeout(t *testing.T, d time.Duration) {
	old := ParseTimeout
	ParseTimeout = d
	t.Cleanup(func() { ParseTimeout = old })
}

// TestParseTimeoutKeepsPartialTree checks that a parse that runs out of
// time (ParseTimeout <= 0 expires at once) returns a partial File marked
// HasError rather than an error, and that the flag the deadline set is
// cleared: the next parse with the same parsers (and with the same WithStop
// flag) is whole.
func TestParseTimeoutKeepsPartialTree(t *testing.T) {
	ix := &Indexer{Project: NewProject(t.TempDir())}
	parsers := map[*Language]*ts.Parser{}
	lang := LanguageFor("big.go")
	src := []byte(bigGo(50))

	withParseTimeout(t, 0)
	f, err := ix.ParseSource(parsers, lang, "big.go", src)
	if err != nil {
		t.Fatalf("timed-out parse: %v (want a partial tree)", err)
	}
	if !f.HasError || len(f.Defs) >= 50 {
		t.Fatalf("timed-out parse: HasError %v, %d definitions; want a partial tree", f.HasError, len(f.Defs))
	}
	f.Release()

	stop := new(uint32)
	restore := ix.WithStop(parsers, lang, stop)
	f, err = ix.ParseSource(parsers, lang, "big.go", src)
	if err != nil || !f.HasError {
		t.Fatalf("timed-out parse with a WithStop flag: %v, HasError %v", err, f != nil && f.HasError)
	}
	f.Release()
	if v := atomic.LoadUint32(stop); v != 0 {
		t.Fatalf("WithStop flag after a timeout = %d, want 0", v)
	}

	ParseTimeout = time.Hour
	f, err = ix.ParseSource(parsers, lang, "big.go", src)
	restore()
	if err != nil || f.HasError || len(f.Defs) != 50 {
		t.Fatalf("parse after a timeout (WithStop flag): %v, HasError %v, %d definitions; want 50", err, f != nil && f.HasError, len(f.Defs))
	}
	f.Release()
	f, err = ix.ParseSource(parsers, lang, "big.go", src)
	if err != nil || f.HasError || len(f.Defs) != 50 {
		t.Fatalf("parse after a timeout: %v, HasError %v, %d definitions; want 50", err, f != nil && f.HasError, len(f.Defs))
	}
	f.Release()
}

// TestInterruptedParseFails checks that a parse cancelled by a WithStop
// flag or by Interrupt fails with ErrInterrupted (no partial tree), also
// when its time has run out as well, and that Interrupt sets the WithStop
// flags in use.
func TestInterruptedParseFails(t *testing.T) {
	ix := &Indexer{Project: NewProject(t.TempDir())}
	parsers := map[*Language]*ts.Parser{}
	lang := LanguageFor("big.go")
	src := []byte(bigGo(50))

	stop := new(uint32)
	restore := ix.WithStop(parsers, lang, stop)
	atomic.StoreUint32(stop, 1)
	if _, err := ix.ParseSource(parsers, lang, "big.go", src); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("parse with a set WithStop flag: %v, want ErrInterrupted", err)
	}
	restore()
	// The indexer's own parses are not cancelled by a caller's flag.
	f, err := ix.ParseSource(parsers, lang, "big.go", src)
	if err != nil || len(f.Defs) != 50 {
		t.Fatalf("parse after a cancelled WithStop parse: %v", err)
	}
	f.Release()

	stop2 := new(uint32)
	restore = ix.WithStop(parsers, lang, stop2)
	ix.Interrupt()
	if v := atomic.LoadUint32(stop2); v == 0 {
		t.Fatal("Interrupt did not set the WithStop flag in use")
	}
	withParseTimeout(t, 0)
	if _, err := ix.ParseSource(parsers, lang, "big.go", src); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted parse with a WithStop flag: %v, want ErrInterrupted", err)
	}
	restore()
	if _, err := ix.ParseSource(parsers, lang, "big.go", src); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted parse: %v, want ErrInterrupted", err)
	}
	if _, err := ix.ParseSource(map[*Language]*ts.Parser{}, lang, "big.go", src); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted parse with new parsers: %v, want ErrInterrupted", err)
	}
}

// TestInterruptSetsRunningParseFlag checks that a parse's own flag (one
// without WithStop) is registered while the parse runs, so that Interrupt
// reaches it, and forgotten afterwards.
func TestInterruptSetsRunningParseFlag(t *testing.T) {
	ix := &Indexer{Project: NewProject(t.TempDir())}
	flag := new(uint32)
	ix.addFlag(flag)
	ix.Interrupt()
	if atomic.LoadUint32(flag) != stopInterrupt {
		t.Fatal("Interrupt did not set a registered parse flag")
	}
	ix.removeFlag(flag)
	late := new(uint32)
	ix.addFlag(late)
	if atomic.LoadUint32(late) != stopInterrupt {
		t.Fatal("a flag registered after Interrupt is not set")
	}
	ix.removeFlag(late)
	if len(ix.flags) != 0 {
		t.Fatalf("%d flags left registered", len(ix.flags))
	}
}
