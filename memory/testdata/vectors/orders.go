package shop

// reserveStock holds inventory for an order during checkout, kept aside
// so that two buyers cannot purchase the last item; reservations lapse
// after 15 minutes.
func reserveStock(order string) error { return nil }

// cancelOrder releases reserved stock and refunds the payment.
func cancelOrder(order string) error { return nil }

// checkout validates the cart, reserves stock and charges the payment.
func checkout(cart string) error { return nil }
