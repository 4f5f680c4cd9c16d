package bundle

import (
	"encoding/hex"

	"github.com/zeebo/blake3"
)

// Identity returns the bundle id "<scope>/<12 hex>/<name>", where the hex
// is the start of BLAKE3-256(scope "\x00" canonical path). The same tree at
// another path, or in another scope, is another bundle and must be trusted
// on its own.
func Identity(scope Scope, canonicalPath, name string) string {
	h := blake3.New()
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write([]byte(canonicalPath))
	sum := h.Sum(nil)
	return string(scope) + "/" + hex.EncodeToString(sum[:6]) + "/" + name
}
