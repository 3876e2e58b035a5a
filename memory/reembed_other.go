//go:build !linux

package memory

// exchangeAtomic returns errNoExchange: only Linux has renameat2(2).
func exchangeAtomic(a, b string) error { return errNoExchange }
