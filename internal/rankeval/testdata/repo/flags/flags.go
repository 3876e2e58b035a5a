// Package flags evaluates feature flags with per-tenant overrides and
// percentage rollouts.
package flags

import (
	"encoding/json"
	"hash/fnv"
	"os"
	"sync/atomic"
)

// Flag is one feature flag.
type Flag struct {
	Name string `json:"name"`
	// Rollout is the percentage (0–100) of tenants that get the flag.
	Rollout int `json:"rollout"`
	// Allow and Deny list tenants that always or never get it; Deny wins.
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
}

// Set is an immutable snapshot of flags, swapped atomically on reload.
type Set struct {
	flags atomic.Pointer[map[string]Flag]
}

// LoadFlags reads a JSON array of flags from path and installs it.
func (s *Set) LoadFlags(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var list []Flag
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	m := make(map[string]Flag, len(list))
	for _, f := range list {
		m[f.Name] = f
	}
	s.flags.Store(&m)
	return nil
}

// Enabled reports whether flag name is on for tenant. Unknown flags are off.
func (s *Set) Enabled(name, tenant string) bool {
	m := s.flags.Load()
	if m == nil {
		return false
	}
	f, ok := (*m)[name]
	if !ok {
		return false
	}
	for _, t := range f.Deny {
		if t == tenant {
			return false
		}
	}
	for _, t := range f.Allow {
		if t == tenant {
			return true
		}
	}
	return rolloutBucket(name, tenant) < f.Rollout
}

// rolloutBucket maps (flag, tenant) to 0..99 with FNV-1a so a tenant's
// bucket differs per flag but is stable across restarts and replicas.
func rolloutBucket(name, tenant string) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(tenant))
	return int(h.Sum32() % 100)
}
