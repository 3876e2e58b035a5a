package pkg_test

import "testing"

func TestCart(t *testing.T) {}
