// Package billing computes invoices. All money is integer cents in the
// invoice currency; never use floats for amounts.
package billing

import (
	"errors"
	"fmt"
	"time"
)

// LineItem is one charge on an invoice.
type LineItem struct {
	Description string
	Quantity    int64
	UnitCents   int64
}

// Invoice is a tenant's bill for one period.
type Invoice struct {
	ID            string
	TenantID      string
	Currency      string
	Items         []LineItem
	DiscountBP    int64 // discount in basis points (1/100 of a percent)
	TaxRateBP     int64
	SubtotalCents int64
	TaxCents      int64
	TotalCents    int64
	IssuedAt      time.Time
}

// ErrNegativeTotal is returned when discounts exceed the subtotal.
var ErrNegativeTotal = errors.New("billing: negative total")

// ComputeTotals fills SubtotalCents, TaxCents and TotalCents. The discount
// applies before tax; each step rounds half to even.
func (inv *Invoice) ComputeTotals() error {
	var sub int64
	for _, it := range inv.Items {
		sub += it.Quantity * it.UnitCents
	}
	discount := roundHalfEven(sub*inv.DiscountBP, 10000)
	net := sub - discount
	if net < 0 {
		return ErrNegativeTotal
	}
	inv.SubtotalCents = sub
	inv.TaxCents = roundHalfEven(net*inv.TaxRateBP, 10000)
	inv.TotalCents = net + inv.TaxCents
	return nil
}

// roundHalfEven divides num by den (den > 0) rounding half to even
// (banker's rounding).
func roundHalfEven(num, den int64) int64 {
	q, r := num/den, num%den
	switch {
	case 2*r > den:
		q++
	case 2*r == den && q%2 != 0:
		q++
	}
	return q
}

// ApplyCoupon sets the discount from a coupon code. Only one coupon applies
// per invoice; a second one replaces the first.
func (inv *Invoice) ApplyCoupon(code string, coupons map[string]int64) error {
	bp, ok := coupons[code]
	if !ok {
		return fmt.Errorf("unknown coupon %q", code)
	}
	if bp < 0 || bp > 10000 {
		return fmt.Errorf("coupon %q has invalid discount %d", code, bp)
	}
	inv.DiscountBP = bp
	return nil
}

// FormatCents renders cents as "12.34 EUR".
func FormatCents(cents int64, currency string) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d %s", sign, cents/100, cents%100, currency)
}
