package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Metrics scores one method against the oracle over the same memories.
type Metrics struct {
	// TP, FP, FN and TN count stale verdicts (positive = stale).
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
	TN int `json:"tn"`
	// Precision, Recall and F1 of the stale verdicts (nil when undefined).
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
	F1        *float64 `json:"f1"`
	// Moved counts memories whose code the oracle says moved unchanged;
	// MovedCorrect those the method located exactly and did not call stale.
	Moved         int      `json:"moved"`
	MovedCorrect  int      `json:"moved_correct"`
	MovedAccuracy *float64 `json:"moved_accuracy"`
	// FormatOnly counts memories whose code changed only in formatting or
	// comments; FormatOnlyFlagged those the method called stale.
	FormatOnly        int `json:"format_only"`
	FormatOnlyFlagged int `json:"format_only_flagged"`
}

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}

// located reports whether p puts the code where the oracle found it and
// does not call it stale.
func located(o OracleResult, p *Prediction) bool {
	if p.Stale || p.Path != o.Path || p.Start != o.Start || p.End != o.End {
		return false
	}
	return p.Status == "" || p.Status == StatusFresh || p.Status == StatusMoved
}

// Score computes the metrics of the method pick selects over subjects;
// subjects for which pick returns nil are not counted.
func Score(subjects []*Subject, pick func(*Subject) *Prediction) *Metrics {
	m := &Metrics{}
	for _, s := range subjects {
		p := pick(s)
		if p == nil {
			continue
		}
		switch o := s.Oracle.Stale(); {
		case o && p.Stale:
			m.TP++
		case !o && p.Stale:
			m.FP++
		case o && !p.Stale:
			m.FN++
		default:
			m.TN++
		}
		if s.Oracle.Status == StatusMoved {
			m.Moved++
			if located(s.Oracle, p) {
				m.MovedCorrect++
			}
		}
		if s.Oracle.FormatOnly {
			m.FormatOnly++
			if p.Stale {
				m.FormatOnlyFlagged++
			}
		}
	}
	m.Precision = ratio(m.TP, m.TP+m.FP)
	m.Recall = ratio(m.TP, m.TP+m.FN)
	if m.Precision != nil && m.Recall != nil && *m.Precision+*m.Recall > 0 {
		f := 2 * *m.Precision * *m.Recall / (*m.Precision + *m.Recall)
		m.F1 = &f
	}
	m.MovedAccuracy = ratio(m.MovedCorrect, m.Moved)
	return m
}

// Disagreement is one memory on which gloss and the oracle disagree.
type Disagreement struct {
	// Kind is missed_stale, false_stale, wrong_kind or wrong_location.
	Kind   string       `json:"kind"`
	Commit string       `json:"commit"`
	Path   string       `json:"path"`
	Func   string       `json:"func"`
	Lines  string       `json:"lines"`
	Oracle OracleResult `json:"oracle"`
	Gloss  Prediction   `json:"gloss"`
}

// disagreement classifies gloss's verdict on s; ok is false when gloss
// agrees with the oracle (fresh and moved count as the same verdict when
// the location is right).
func disagreement(commit string, s *Subject) (Disagreement, bool) {
	g := s.Gloss
	if g == nil {
		return Disagreement{}, false
	}
	o := s.Oracle
	var kind string
	switch {
	case o.Stale() && !g.Stale:
		kind = "missed_stale"
	case !o.Stale() && g.Stale:
		kind = "false_stale"
	case o.Stale() && g.Status != o.Status:
		kind = "wrong_kind"
	case !o.Stale() && !located(o, g):
		kind = "wrong_location"
	default:
		return Disagreement{}, false
	}
	return Disagreement{
		Kind: kind, Commit: commit, Path: s.Func.Path, Func: s.Func.Display(),
		Lines: fmt.Sprintf("%d-%d", s.Func.Start, s.Func.End), Oracle: o, Gloss: *g,
	}, true
}

// SubjectRecord is one memory in the JSON report.
type SubjectRecord struct {
	Path  string `json:"path"`
	Func  string `json:"func"`
	Start int    `json:"start_line"`
	End   int    `json:"end_line"`
	*Subject
}

// CommitReport is one evaluated (or skipped) commit pair.
type CommitReport struct {
	Pair
	// Skipped gives the reason the pair was not evaluated.
	Skipped string `json:"skipped,omitempty"`
	// Files is the number of changed .go files judged.
	Files int `json:"files"`
	// UnparsedFiles lists changed files left out because they do not parse.
	UnparsedFiles []string `json:"unparsed_files,omitempty"`
	// Errors are harness errors (gloss failures, memories gloss did not
	// create or report).
	Errors []string `json:"errors,omitempty"`
	// Seconds is the wall time spent on the pair.
	Seconds  float64          `json:"seconds"`
	Subjects []*SubjectRecord `json:"subjects,omitempty"`

	subjects []*Subject
}

// Methods holds the metrics of gloss and the two baselines.
type Methods struct {
	Gloss    *Metrics `json:"gloss,omitempty"`
	LineHash *Metrics `json:"line_hash"`
	DiffMap  *Metrics `json:"diff_map"`
}

// Report is the whole evaluation, written as JSON with -out.
type Report struct {
	Repo             string  `json:"repo"`
	Head             string  `json:"head"`
	Range            string  `json:"range"`
	GlossBinary      string  `json:"gloss_binary,omitempty"`
	GlossVersion     string  `json:"gloss_version,omitempty"`
	CommitsRequested int     `json:"commits_requested"`
	CommitsEvaluated int     `json:"commits_evaluated"`
	CommitsSkipped   int     `json:"commits_skipped"`
	MaxFuncs         int     `json:"max_funcs_per_commit"`
	Interrupted      bool    `json:"interrupted,omitempty"`
	Seconds          float64 `json:"seconds"`
	// Memories is the number of memories scored (same for every method).
	Memories int `json:"memories"`
	// HarnessErrors counts memories left out because gloss failed on them,
	// plus whole-pair gloss failures.
	HarnessErrors int `json:"harness_errors"`
	// OracleStatus counts oracle verdicts of the scored memories.
	OracleStatus map[string]int `json:"oracle_status"`
	Methods      Methods        `json:"methods"`
	// Confusion counts oracle status → gloss status.
	Confusion     map[string]map[string]int `json:"confusion,omitempty"`
	Disagreements []Disagreement            `json:"disagreements,omitempty"`
	// GlossSeconds is gloss's wall time per verb.
	GlossSeconds map[string]float64 `json:"gloss_seconds,omitempty"`
	Commits      []*CommitReport    `json:"commits"`
}

// Finish computes the aggregate fields from the commit reports. When
// withGloss is set only memories gloss reported on are scored, so every
// method has the same denominator.
func (r *Report) Finish(withGloss bool) {
	var all []*Subject
	r.OracleStatus = map[string]int{}
	r.Confusion = nil
	r.Disagreements = nil
	r.CommitsEvaluated, r.CommitsSkipped = 0, 0
	for _, c := range r.Commits {
		if c.Skipped != "" {
			r.CommitsSkipped++
			continue
		}
		r.CommitsEvaluated++
		c.Subjects = nil
		for _, s := range c.subjects {
			c.Subjects = append(c.Subjects, &SubjectRecord{Path: s.Func.Path, Func: s.Func.Display(), Start: s.Func.Start, End: s.Func.End, Subject: s})
			if withGloss && s.Gloss == nil {
				continue
			}
			all = append(all, s)
			r.OracleStatus[s.Oracle.Status]++
			if withGloss {
				if r.Confusion == nil {
					r.Confusion = map[string]map[string]int{}
				}
				row := r.Confusion[s.Oracle.Status]
				if row == nil {
					row = map[string]int{}
					r.Confusion[s.Oracle.Status] = row
				}
				row[s.Gloss.Status]++
				if d, ok := disagreement(c.Commit, s); ok {
					r.Disagreements = append(r.Disagreements, d)
				}
			}
		}
	}
	r.Memories = len(all)
	if withGloss {
		r.Methods.Gloss = Score(all, func(s *Subject) *Prediction { return s.Gloss })
	}
	r.Methods.LineHash = Score(all, func(s *Subject) *Prediction { return &s.LineHash })
	r.Methods.DiffMap = Score(all, func(s *Subject) *Prediction { return &s.DiffMap })
}

func pct(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100**p)
}

// PrintSummary writes a readable summary of r.
func (r *Report) PrintSummary(w io.Writer) {
	fmt.Fprintf(w, "gloss-eval: %s, %s\n", r.Repo, r.Range)
	fmt.Fprintf(w, "commits: %d evaluated, %d skipped (of %d requested); memories scored: %d; harness errors: %d; %.0fs\n",
		r.CommitsEvaluated, r.CommitsSkipped, r.CommitsRequested, r.Memories, r.HarnessErrors, r.Seconds)
	if r.Interrupted {
		fmt.Fprintln(w, "INTERRUPTED: partial results")
	}
	var st []string
	for _, k := range []string{StatusFresh, StatusMoved, StatusChanged, StatusSignatureChanged, StatusDeleted} {
		st = append(st, fmt.Sprintf("%s %d", k, r.OracleStatus[k]))
	}
	fmt.Fprintf(w, "oracle: %s\n\n", strings.Join(st, ", "))

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tprecision\trecall\tF1\tTP\tFP\tFN\tTN\tmoved acc.\tfmt/comment-only flagged\t")
	row := func(name string, m *Metrics) {
		if m == nil {
			return
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s (%d/%d)\t%d/%d\t\n", name,
			pct(m.Precision), pct(m.Recall), pct(m.F1), m.TP, m.FP, m.FN, m.TN,
			pct(m.MovedAccuracy), m.MovedCorrect, m.Moved, m.FormatOnlyFlagged, m.FormatOnly)
	}
	row("gloss", r.Methods.Gloss)
	row("line-hash", r.Methods.LineHash)
	row("diff-map", r.Methods.DiffMap)
	tw.Flush()

	if r.Confusion != nil {
		fmt.Fprintln(w, "\noracle status → gloss status:")
		var keys []string
		for k := range r.Confusion {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			var cells []string
			for g, n := range r.Confusion[k] {
				cells = append(cells, fmt.Sprintf("%s %d", g, n))
			}
			sort.Strings(cells)
			fmt.Fprintf(w, "  %-17s %s\n", k, strings.Join(cells, ", "))
		}
	}
	if len(r.Disagreements) > 0 {
		kinds := map[string]int{}
		for _, d := range r.Disagreements {
			kinds[d.Kind]++
		}
		fmt.Fprintf(w, "\ndisagreements: %d %v (first 20; all in the JSON report)\n", len(r.Disagreements), kinds)
		for i, d := range r.Disagreements {
			if i == 20 {
				break
			}
			fmt.Fprintf(w, "  %s %.10s %s:%s %s: oracle %s %s:%d-%d, gloss %s %s:%d-%d\n", d.Kind, d.Commit, d.Path, d.Lines, d.Func,
				d.Oracle.Status, d.Oracle.Path, d.Oracle.Start, d.Oracle.End, d.Gloss.Status, d.Gloss.Path, d.Gloss.Start, d.Gloss.End)
		}
	}
}
