  // Package pkg is a snapshot fixture.
  package pkg
  
  import "fmt"
  
  // MaxItems caps a cart.
  const MaxItems = 100
//      ^^^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/MaxItems.
//      kind const lines 7-7 doc 6
//      documentation MaxItems caps a cart.
  
  const (
  	// Red is a color.
  	Red = iota
// ^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Red.
// kind const lines 11-11 doc 10
// documentation Red is a color.
  	Green
// ^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Green.
// kind const lines 12-12
  	_
  )
  
  var defaultCart, emptyCart = NewCart(), Cart{}
//    ^^^^^^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/defaultCart.
//    kind var lines 16-16
//                 ^^^^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/emptyCart.
//                 kind var lines 16-16
  
  // Cart holds items.
  type Cart struct {
//     ^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Cart#
//     kind struct lines 19-27 doc 18
//     documentation Cart holds items.
  	Items []Item
// ^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Cart#Items.
// kind field lines 20-20
  	Owner struct {
// ^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Cart#Owner.
// kind field lines 21-23
  		Name string
//  ^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Cart#Owner.Name.
//  kind field lines 22-22
  	}
  	fmt.Stringer
//     ^^^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Cart#Stringer.
//     kind field lines 24-24
  	*Discount
//  ^^^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Cart#Discount.
//  kind field lines 25-25
  	a, b int
// ^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Cart#a.
// kind field lines 26-26
//    ^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Cart#b.
//    kind field lines 26-26
  }
  
  // Item is one line of a cart.
  type Item = struct{ SKU string }
//     ^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Item#
//     kind struct lines 30-30 doc 29
//     documentation Item is one line of a cart.
//                    ^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Item#SKU.
//                    kind field lines 30-30
  
  // Discount applies to a cart.
  type Discount struct{ Percent int }
//     ^^^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Discount#
//     kind struct lines 33-33 doc 32
//     documentation Discount applies to a cart.
//                      ^^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Discount#Percent.
//                      kind field lines 33-33
  
  // Pricer prices things.
  type Pricer interface {
//     ^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Pricer#
//     kind interface lines 36-39 doc 35
//     documentation Pricer prices things.
  	Price(i Item) (int, error)
// ^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Pricer#Price.
// kind method lines 37-37
  	fmt.Stringer
  }
  
  // Set is generic.
  type Set[T comparable] map[T]struct{}
//     ^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Set#
//     kind type lines 42-42 doc 41
//     documentation Set is generic.
  
  // NewCart makes a cart.
  func NewCart() Cart { return Cart{} }
//     ^^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/NewCart().
//     kind function lines 45-45 doc 44
//     documentation NewCart makes a cart.
  
  // Add adds an item.
  func (c *Cart) Add(i Item) error {
//               ^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Cart#Add().
//               kind method lines 48-54 doc 47
//               documentation Add adds an item.
  	if len(c.Items) >= MaxItems {
  		return fmt.Errorf("full")
  	}
  	c.Items = append(c.Items, i)
  	return nil
  }
  
  func (s Set[T]) Has(v T) bool { _, ok := s[v]; return ok }
//                ^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/Set#Has().
//                kind method lines 56-56
  
  func init() {}
//     ^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg`/init().
//     kind function lines 58-58
