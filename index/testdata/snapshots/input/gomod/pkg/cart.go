// Package pkg is a snapshot fixture.
package pkg

import "fmt"

// MaxItems caps a cart.
const MaxItems = 100

const (
	// Red is a color.
	Red = iota
	Green
	_
)

var defaultCart, emptyCart = NewCart(), Cart{}

// Cart holds items.
type Cart struct {
	Items []Item
	Owner struct {
		Name string
	}
	fmt.Stringer
	*Discount
	a, b int
}

// Item is one line of a cart.
type Item = struct{ SKU string }

// Discount applies to a cart.
type Discount struct{ Percent int }

// Pricer prices things.
type Pricer interface {
	Price(i Item) (int, error)
	fmt.Stringer
}

// Set is generic.
type Set[T comparable] map[T]struct{}

// NewCart makes a cart.
func NewCart() Cart { return Cart{} }

// Add adds an item.
func (c *Cart) Add(i Item) error {
	if len(c.Items) >= MaxItems {
		return fmt.Errorf("full")
	}
	c.Items = append(c.Items, i)
	return nil
}

func (s Set[T]) Has(v T) bool { _, ok := s[v]; return ok }

func init() {}
