package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/receipts"
)

// Review is what a person is shown before trusting a bundle: the bundle,
// both hashes, the inventory they were computed over and, only when the
// bundle may be trusted, the token.
type Review struct {
	Bundle *bundle.Bundle
	// ContentHash and CapabilityHash are zero when they were not computed
	// (a rejected bundle has neither).
	ContentHash    receipts.Digest
	CapabilityHash receipts.Digest
	// Inventory is the canonical JSON the capability hash covers; nil for
	// a rejected bundle.
	Inventory []byte
	// Inv is Inventory decoded; nil when Inventory is.
	Inv *inventory.Inventory
	// Token is nil when the bundle cannot be trusted; Refusals then says
	// why, one reason per entry.
	Token    *receipts.Token
	Refusals []string
	Errors   []bundle.Finding // errors and skipped components
	Warnings []bundle.Finding
	// Diff is what changed since the bundle's last trust, set by the
	// caller that knows the receipt (nil: never trusted, or not asked).
	Diff *Diff
}

// New builds the review of b. A rejected bundle gets a review with its
// findings, no hashes and no token. New fails only when a bundle that
// walked cleanly cannot be hashed: the tree changed since the walk
// (bundle.ErrChanged), a read failed, or the model has no canonical
// inventory.
func New(b *bundle.Bundle) (*Review, error) {
	rv := &Review{Bundle: b, Errors: b.Report.Errors(), Warnings: b.Report.Warnings()}
	if b.Rejected() || b.Tree == nil {
		rv.Refusals = append(rv.Refusals, fmt.Sprintf("the bundle is invalid (%d error(s) above): fix them and review again", countSev(b.Report, bundle.Error)))
		return rv, nil
	}
	c, err := Hash(b)
	if err != nil {
		return nil, err
	}
	k, inv, err := CapabilityHash(b)
	if err != nil {
		return nil, err
	}
	rv.ContentHash, rv.CapabilityHash, rv.Inventory = c, k, inv
	if rv.Inv, err = inventory.Parse(inv); err != nil {
		return nil, err
	}
	if b.Blocked() {
		var s []string
		for _, d := range b.Inactive {
			s = append(s, d.Surface)
		}
		rv.Refusals = append(rv.Refusals, fmt.Sprintf("the bundle is blocked: it declares %s, which bundlectl does not run; a blocked bundle can be neither trusted nor enabled", strings.Join(dedupe(s), ", ")))
	}
	if b.ShadowedBy != "" {
		rv.Refusals = append(rv.Refusals, fmt.Sprintf("the bundle is shadowed by %s, which has the same name and wins; it can never become active", bundle.Quote(b.ShadowedBy)))
	}
	if b.Scope == bundle.ScopeDir {
		rv.Refusals = append(rv.Refusals, "the bundle was loaded from a directory, not a bundle root: install it first (bundlectl install "+bundle.Operands(b.Dir)+")")
	}
	if !bundle.ValidBundleName(b.Name) {
		// Checked again here because the name is printed unquoted in a
		// shell command.
		why := "the bundle name is not a valid bundle name (" + bundle.BundleNameRule + ")"
		if s := bundle.SuggestBundleName(b.Name); s != "" {
			why += "; rename its directory, e.g. to " + bundle.Quote(s)
		}
		rv.Refusals = append(rv.Refusals, why)
	}
	if len(rv.Refusals) == 0 {
		rv.Token = &receipts.Token{Content: c, Capability: k}
	}
	return rv, nil
}

// TrustCommand returns the exact command that trusts the reviewed bundle,
// or "" when it cannot be trusted.
func (rv *Review) TrustCommand() string {
	if rv.Token == nil {
		return ""
	}
	return "bundlectl trust " + bundle.ShellArg(rv.Bundle.Name) + " " + rv.Token.String()
}

func countSev(r bundle.Report, s bundle.Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// JSONReview is the --json form of a review. Field names are stable
// (docs/design.md).
type JSONReview struct {
	Name           string           `json:"name"`
	ID             string           `json:"id"`
	Scope          string           `json:"scope"`
	Path           string           `json:"path"`
	ContentHash    *receipts.Digest `json:"content_hash"`    // null when not computed
	CapabilityHash *receipts.Digest `json:"capability_hash"` // null when not computed
	Token          *receipts.Token  `json:"token"`           // null when the bundle cannot be trusted
	TrustCommand   string           `json:"trust_command,omitempty"`
	Refusals       []string         `json:"refusals"`
	// Components is the capability inventory (docs/hashing.md), null for
	// a rejected bundle.
	Components json.RawMessage   `json:"components"`
	Inactive   []bundle.Inactive `json:"inactive"`
	// Skipped are the components that will not load (also in Errors).
	Skipped  []bundle.Finding `json:"skipped"`
	Errors   []bundle.Finding `json:"errors"`
	Warnings []bundle.Finding `json:"warnings"`
	// Formats are the manifest formats the bundle was read through.
	Formats []bundle.Format `json:"formats"`
	Notes   []string        `json:"notes"`
	// NetworkNeverContacted are the hosts of the inventory's network
	// hosts that no endpoint the bundle declares (http hook or MCP url)
	// reaches (bundle.NeverContactedWhy), as
	// show --json has them under permissions. Not in components: the
	// inventory is what the capability hash covers, and this mark is the
	// review's reading of it, not part of it.
	NetworkNeverContacted []string `json:"network_never_contacted,omitempty"`
	// HostNotes are what the review says about how each host treats a
	// part of the bundle (HostNotes): the reasons for network_never_contacted
	// host by host, and the per-host rows of hooks, MCP servers and agents.
	HostNotes []HostNote `json:"host_notes"`
	// RunTimeHosts are the remote MCP servers whose host a variable in
	// the url decides at run time (RunTimeHost), absent when there is
	// none or no inventory. Not in components: a reading of the url.
	RunTimeHosts []RunTimeHost `json:"run_time_hosts,omitempty"`
	// Diff is present when the bundle was trusted before (docs/sources.md).
	Diff *Diff `json:"diff,omitempty"`
}

// JSON returns the --json form of the review.
func (rv *Review) JSON() JSONReview {
	b := rv.Bundle
	j := JSONReview{
		Name: b.Name, ID: b.ID, Scope: string(b.Scope), Path: b.Dir,
		Token: rv.Token, TrustCommand: rv.TrustCommand(),
		Refusals: nonNil(rv.Refusals), Components: json.RawMessage("null"),
		Inactive: b.Inactive, Errors: nonNilF(rv.Errors), Warnings: nonNilF(rv.Warnings),
		Skipped: []bundle.Finding{}, Formats: b.Formats, Notes: nonNil(b.Notes),
		Diff: rv.Diff, HostNotes: hostNotesJSON(HostNotes(b, rv.Inv)),
	}
	if rv.Inventory != nil {
		// Only beside an inventory that lists the hosts.
		j.NetworkNeverContacted = b.Permissions.NetworkNeverContacted
		j.RunTimeHosts = runTimeHostList(b)
	}
	if j.Formats == nil {
		j.Formats = []bundle.Format{}
	}
	for _, f := range rv.Errors {
		if f.Severity == bundle.Skip {
			j.Skipped = append(j.Skipped, f)
		}
	}
	if j.Inactive == nil {
		j.Inactive = []bundle.Inactive{}
	}
	if !rv.ContentHash.IsZero() {
		c, k := rv.ContentHash, rv.CapabilityHash
		j.ContentHash, j.CapabilityHash = &c, &k
	}
	if rv.Inventory != nil {
		j.Components = rv.Inventory
	}
	return j
}

// RenderJSON writes the --json form, indented, with a final newline. Like
// the human form it is inert on a terminal: bidirectional and other
// non-printing characters in strings are written as \u escapes.
func RenderJSON(w io.Writer, rv *Review) error {
	return RenderJSONWith(w, rv, RenderOptions{})
}

// RenderJSONWith is RenderJSON with the trust command, and the commands
// the refusals name, passed through opts.Command, as Render does.
func RenderJSONWith(w io.Writer, rv *Review, opts RenderOptions) error {
	j := rv.JSON()
	if opts.Command != nil && j.TrustCommand != "" {
		j.TrustCommand = opts.Command(j.TrustCommand)
	}
	refusals := make([]string, len(j.Refusals)) // not rv's own
	for i, why := range j.Refusals {
		refusals[i] = bundle.CommandsIn(why, opts.Command)
	}
	j.Refusals = refusals
	j.Diff = j.Diff.WithCommand(opts.Command)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(j); err != nil {
		return err
	}
	if _, err := io.WriteString(w, jsonSanitize(buf.String())); err != nil {
		return fmt.Errorf("%w: %v", errRender, err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilF(s []bundle.Finding) []bundle.Finding {
	if s == nil {
		return []bundle.Finding{}
	}
	return s
}

// errRender is wrapped by write failures, so a caller can tell them apart.
var errRender = errors.New("writing the review")
