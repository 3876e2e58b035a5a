package fix

// Retry retries f.
func Retry(f func() error) error {
	for i := 0; i < 3; i++ {
		if f() == nil {
			return nil
		}
	}
	return nil
}

// Parse parses s.
func Parse(s string) int {
	return len([]rune(s))
}
