  package pkg_test
  
  import "testing"
  
  func TestCart(t *testing.T) {}
//     ^^^^^^^^ definition scip-go gomod example.com/shop . `example.com/shop/pkg_test`/TestCart().
//     kind function lines 5-5
