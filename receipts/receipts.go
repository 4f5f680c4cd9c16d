package receipts

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Size is the length of a digest in bytes: BLAKE3-256.
const Size = 32

// Digest is a BLAKE3-256 digest. Its text form is 64 lowercase hex digits.
type Digest [Size]byte

// ErrMalformed is wrapped by every parse failure in this package.
var ErrMalformed = errors.New("malformed")

// Parse parses exactly 64 lowercase hex digits.
func Parse(s string) (Digest, error) {
	var d Digest
	if len(s) != 2*Size {
		return d, fmt.Errorf("digest: %w: want %d lowercase hex digits, got %d characters", ErrMalformed, 2*Size, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return d, fmt.Errorf("digest: %w: character %d is not a lowercase hex digit", ErrMalformed, i+1)
		}
	}
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return d, fmt.Errorf("digest: %w: %v", ErrMalformed, err)
	}
	return d, nil
}

// String returns the 64 lowercase hex digits.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// Short returns the first 12 hex digits, for display only.
func (d Digest) Short() string { return d.String()[:12] }

// IsZero reports whether d is the zero digest (no digest).
func (d Digest) IsZero() bool { return d == Digest{} }

func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

func (d *Digest) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*d = p
	return nil
}

// Token is what a person confirms: the content hash and the capability
// hash of exactly the reviewed bundle. Its text form is
// "<content-hex>.<capability-hex>".
type Token struct {
	Content    Digest
	Capability Digest
}

// ParseToken parses "<64 lowercase hex>.<64 lowercase hex>" and nothing
// else: no whitespace, no upper case, no other separator.
func ParseToken(s string) (Token, error) {
	var t Token
	if len(s) != 4*Size+1 || s[2*Size] != '.' || strings.Count(s, ".") != 1 {
		return t, fmt.Errorf("token: %w: want <64 hex>.<64 hex> (%d characters), got %d characters", ErrMalformed, 4*Size+1, len(s))
	}
	c, err := Parse(s[:2*Size])
	if err != nil {
		return t, fmt.Errorf("token content hash: %w", err)
	}
	k, err := Parse(s[2*Size+1:])
	if err != nil {
		return t, fmt.Errorf("token capability hash: %w", err)
	}
	return Token{Content: c, Capability: k}, nil
}

func (t Token) String() string { return t.Content.String() + "." + t.Capability.String() }

func (t Token) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

func (t *Token) UnmarshalText(b []byte) error {
	p, err := ParseToken(string(b))
	if err != nil {
		return err
	}
	*t = p
	return nil
}

// Receipt records one trust decision: a person reviewed exactly this
// content and these capabilities of this bundle, and the reviewed tree was
// staged at Snapshot.
type Receipt struct {
	BundleID       string `json:"bundle_id"`
	ContentHash    Digest `json:"content_hash"`
	CapabilityHash Digest `json:"capability_hash"`
	// Inventory is the canonical JSON of the reviewed capability inventory,
	// the exact bytes the capability hash was computed over (after its tag).
	Inventory json.RawMessage `json:"inventory"`
	// Snapshot is the absolute path of the staged snapshot directory.
	Snapshot   string    `json:"snapshot"`
	ReviewedAt time.Time `json:"reviewed_at"`
	// Generation is the bundle's state generation at which the receipt was
	// written.
	Generation uint64 `json:"generation"`
}

// Token returns the receipt's token.
func (r *Receipt) Token() Token {
	return Token{Content: r.ContentHash, Capability: r.CapabilityHash}
}
