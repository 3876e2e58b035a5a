package main

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// hwmPoller samples a running child's peak resident set size from
// /proc/PID/status (VmHWM, Linux), because the ru_maxrss that wait4
// reports is floored by the parent's own peak: Go starts children with
// vfork, and Linux carries the shared address space's high-water mark
// into the child's ru_maxrss at exec, so glossbench (which holds the
// parse of the whole checkout after generating memories) made every
// child look at least as large as itself. VmHWM belongs to the child's
// own address space after exec. Where /proc is absent the poller reads
// nothing and the caller keeps ru_maxrss.
type hwmPoller struct {
	stop chan struct{}
	done sync.WaitGroup
	kib  int64 // largest VmHWM read, in KiB
}

// pollHWM starts sampling pid every 20 ms until stop is called.
func pollHWM(pid int) *hwmPoller {
	p := &hwmPoller{stop: make(chan struct{})}
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if k := readHWM(path); k > p.kib {
				p.kib = k
			}
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// stopMiB ends the sampling and returns the largest VmHWM read in MiB,
// 0 when none was.
func (p *hwmPoller) stopMiB() float64 {
	close(p.stop)
	p.done.Wait()
	return float64(p.kib) / 1024
}

// readHWM returns the VmHWM line of a /proc status file in KiB, 0 when
// it cannot be read.
func readHWM(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	i := bytes.Index(data, []byte("VmHWM:"))
	if i < 0 {
		return 0
	}
	f := bytes.Fields(data[i+len("VmHWM:"):])
	if len(f) < 2 || string(f[1]) != "kB" {
		return 0
	}
	k, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return 0
	}
	return k
}
