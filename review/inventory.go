package review

import (
	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/receipts"
)

// CapabilityTag starts every capability hash.
const CapabilityTag = inventory.Tag

// Inventory returns the canonical JSON of the bundle's capability
// inventory, "bundlectl-capabilities-v2" (docs/hashing.md).
func Inventory(b *bundle.Bundle) ([]byte, error) {
	return inventory.Canonical(inventory.Of(b))
}

// CapabilityHash returns BLAKE3-256(CapabilityTag || Inventory(b)) and
// the inventory it was computed over.
func CapabilityHash(b *bundle.Bundle) (receipts.Digest, []byte, error) {
	inv, err := Inventory(b)
	if err != nil {
		return receipts.Digest{}, nil, err
	}
	return CapabilityDigest(inv), inv, nil
}

// CapabilityDigest hashes an inventory's canonical JSON, for a receipt
// that stored it.
func CapabilityDigest(canonical []byte) receipts.Digest { return inventory.Digest(canonical) }
