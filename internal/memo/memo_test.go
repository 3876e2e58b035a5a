package memo

import (
	"fmt"
	"sync"
	"testing"
)

// A Map returns what was put, starts over when full, and is safe for
// concurrent Gets and Puts (run with -race).
func TestMap(t *testing.T) {
	var c Map[int]
	c.Max = 4
	if _, ok := c.Get("a"); ok {
		t.Fatal("zero Map has a value")
	}
	for i := range 4 {
		c.Put(fmt.Sprint(i), i)
	}
	if v, ok := c.Get("3"); !ok || v != 3 || c.Len() != 4 {
		t.Fatalf("Get(3) = %d, %v; %d held", v, ok, c.Len())
	}
	c.Put("3", 33) // a key already held still starts a full Map over
	if v, _ := c.Get("3"); v != 33 || c.Len() != 1 {
		t.Fatalf("after a Put into a full Map: Get(3) = %d, %d held", v, c.Len())
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				k := fmt.Sprint(i % 10)
				if v, ok := c.Get(k); ok && v != i%10 && k != "3" {
					t.Errorf("goroutine %d: Get(%s) = %d", g, k, v)
				}
				c.Put(k, i%10)
			}
		})
	}
	wg.Wait()
}
