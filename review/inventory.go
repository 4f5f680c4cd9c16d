package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/zeebo/blake3"
)

// CapabilityTag starts every capability hash.
const CapabilityTag = "bundlectl-capabilities-v1\x00"

// InventoryError reports a bundle model that has no canonical inventory:
// a string that is not valid UTF-8, a params schema that is not JSON, an
// endpoint that is not a URL. The manifest readers reject all of these, so
// this is a defect, never something to hash around.
type InventoryError struct {
	Field string // e.g. "tools[greet].params"
	Msg   string
}

func (e *InventoryError) Error() string {
	return fmt.Sprintf("capability inventory: %s: %s", bundle.Sanitize(e.Field), e.Msg)
}

// Inventory returns the canonical JSON of the bundle's capability
// inventory, "bundlectl-capabilities-v1" (docs/hashing.md): every field
// present, object keys sorted by their UTF-8 bytes, no insignificant
// whitespace, arrays in the documented order: argv and hooks exactly as
// written, named components sorted by name, sets sorted.
func Inventory(b *bundle.Bundle) ([]byte, error) {
	v, err := inventoryValue(b)
	if err != nil {
		return nil, err
	}
	return canonicalJSON(v)
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
func CapabilityDigest(inventory []byte) receipts.Digest {
	h := blake3.New()
	h.WriteString(CapabilityTag)
	h.Write(inventory)
	var d receipts.Digest
	h.Sum(d[:0])
	return d
}

type obj = map[string]any

// invBuilder builds the generic inventory value, checking every string.
type invBuilder struct{ err error }

func (ib *invBuilder) fail(field, msg string) {
	if ib.err == nil {
		ib.err = &InventoryError{Field: field, Msg: msg}
	}
}

func (ib *invBuilder) str(field, s string) string {
	if !utf8.ValidString(s) {
		ib.fail(field, "not valid UTF-8")
	}
	return s
}

// list keeps order: argv.
func (ib *invBuilder) list(field string, ss []string) []any {
	out := make([]any, 0, len(ss))
	for i, s := range ss {
		out = append(out, ib.str(fmt.Sprintf("%s[%d]", field, i), s))
	}
	return out
}

// set sorts and removes duplicates: values whose order means nothing.
func (ib *invBuilder) set(field string, ss []string) []any {
	c := append([]string(nil), ss...)
	sort.Strings(c)
	out := make([]any, 0, len(c))
	for i, s := range c {
		if i > 0 && s == c[i-1] {
			continue
		}
		out = append(out, ib.str(field, s))
	}
	return out
}

func (ib *invBuilder) strMap(field string, m map[string]string) obj {
	out := make(obj, len(m))
	for k, v := range m {
		out[ib.str(field, k)] = ib.str(field+"."+k, v)
	}
	return out
}

// rawJSON returns raw (a JSON document) as a generic value, numbers kept
// exactly as written; null when raw is empty.
func (ib *invBuilder) rawJSON(field string, raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if !utf8.Valid(raw) {
		ib.fail(field, "not valid UTF-8")
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		ib.fail(field, "not valid JSON")
		return nil
	}
	if dec.More() {
		ib.fail(field, "more than one JSON value")
	}
	return v
}

func inventoryValue(b *bundle.Bundle) (any, error) {
	ib := &invBuilder{}
	c := b.Components

	skills := make([]any, 0, len(c.Skills))
	for _, s := range sortedBy(c.Skills, func(s bundle.Skill) string { return s.Name }) {
		f := "skills[" + s.Name + "]"
		skills = append(skills, obj{
			"name":          ib.str(f+".name", s.Name),
			"path":          ib.str(f+".path", s.Path),
			"allowed_tools": ib.str(f+".allowed_tools", s.AllowedTools),
		})
	}
	docs := func(kind string, ds []bundle.Document) []any {
		out := make([]any, 0, len(ds))
		for _, d := range sortedBy(ds, func(d bundle.Document) string { return d.Name }) {
			f := kind + "[" + d.Name + "]"
			out = append(out, obj{"name": ib.str(f+".name", d.Name), "path": ib.str(f+".path", d.Path)})
		}
		return out
	}
	tools := make([]any, 0, len(c.Tools))
	for _, t := range sortedBy(c.Tools, func(t bundle.Tool) string { return t.Name }) {
		f := "tools[" + t.Name + "]"
		tools = append(tools, obj{
			"name":        ib.str(f+".name", t.Name),
			"command":     ib.str(f+".command", t.Command),
			"args":        ib.list(f+".args", t.Args),
			"params":      ib.rawJSON(f+".params", t.Params),
			"timeout_sec": t.TimeoutSec,
		})
	}
	hooks := make([]any, 0, len(c.Hooks))
	for i, h := range c.Hooks { // manifest order: it is the precedence order
		f := fmt.Sprintf("hooks[%d]", i)
		hooks = append(hooks, obj{
			"event":       ib.str(f+".event", h.Event),
			"matcher":     ib.str(f+".matcher", h.Matcher),
			"command":     ib.str(f+".command", h.Command),
			"args":        ib.list(f+".args", h.Args),
			"timeout_sec": h.TimeoutSec,
		})
	}
	servers := make([]any, 0, len(c.MCP))
	for _, s := range sortedBy(c.MCP, func(s bundle.MCPServer) string { return s.Name }) {
		f := "mcp_servers[" + s.Name + "]"
		u := ""
		if s.URL != "" {
			n, err := NormalizeURL(s.URL)
			if err != nil {
				ib.fail(f+".url", err.Error())
			}
			u = n
		}
		servers = append(servers, obj{
			"name":                 ib.str(f+".name", s.Name),
			"transport":            ib.str(f+".transport", s.Transport),
			"command":              ib.str(f+".command", s.Command),
			"args":                 ib.list(f+".args", s.Args),
			"cwd":                  ib.str(f+".cwd", s.Cwd),
			"env":                  ib.strMap(f+".env", s.Env),
			"env_from":             ib.strMap(f+".env_from", s.EnvFrom),
			"url":                  ib.str(f+".url", u),
			"headers":              ib.strMap(f+".headers", s.Headers),
			"bearer_token_env_var": ib.str(f+".bearer_token_env_var", s.BearerTokenEnvVar),
			"env_headers":          ib.strMap(f+".env_headers", s.EnvHeaders),
			"tools_include":        ib.set(f+".tools_include", s.ToolsInclude),
			"tools_exclude":        ib.set(f+".tools_exclude", s.ToolsExclude),
			"timeout_sec":          s.TimeoutSec,
		})
	}
	inactive := make([]any, 0, len(b.Inactive))
	ina := append([]bundle.Inactive(nil), b.Inactive...)
	sort.SliceStable(ina, func(i, j int) bool {
		if ina[i].Surface != ina[j].Surface {
			return ina[i].Surface < ina[j].Surface
		}
		return ina[i].Name < ina[j].Name
	})
	for _, d := range ina {
		f := "inactive[" + d.Surface + "/" + d.Name + "]"
		inactive = append(inactive, obj{
			"surface": ib.str(f+".surface", d.Surface),
			"name":    ib.str(f+".name", d.Name),
			"spec":    ib.rawJSON(f+".spec", d.Spec),
		})
	}
	hosts := make([]string, 0, len(b.Permissions.NetworkHosts))
	for _, h := range b.Permissions.NetworkHosts {
		hosts = append(hosts, strings.ToLower(h))
	}
	v := obj{
		"name":        ib.str("name", b.Name),
		"skills":      skills,
		"commands":    docs("commands", c.Commands),
		"agents":      docs("agents", c.Agents),
		"tools":       tools,
		"hooks":       hooks,
		"mcp_servers": servers,
		"permissions": obj{
			"network_hosts":      ib.set("permissions.network_hosts", hosts),
			"filesystem_roots":   ib.set("permissions.filesystem_roots", b.Permissions.FilesystemRoots),
			"lifecycle_mutation": b.Permissions.LifecycleMutation,
		},
		"when": obj{
			"os":       ib.set("when.os", b.When.OS),
			"binaries": ib.set("when.binaries", b.When.Binaries),
		},
		"inactive": inactive,
	}
	if ib.err != nil {
		return nil, ib.err
	}
	return v, nil
}

// sortedBy returns a copy of xs sorted by key, ties kept in input order.
func sortedBy[T any](xs []T, key func(T) string) []T {
	c := append([]T(nil), xs...)
	sort.SliceStable(c, func(i, j int) bool { return key(c[i]) < key(c[j]) })
	return c
}

// canonicalJSON encodes a generic value (objects as map[string]any, whose
// keys encoding/json sorts by their bytes) without insignificant
// whitespace and without HTML escaping.
func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// NormalizeURL returns the form of a remote MCP endpoint the capability
// hash records: scheme and host lower case, the scheme's default port
// dropped, path and query exactly as written (escapes untouched). It
// refuses what validation rejects and what has no single meaning:
// a scheme other than http and https, userinfo, a fragment, a host that is
// neither an IP address nor an ASCII host name (IDNs must be punycode).
func NormalizeURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("not an absolute URL")
	}
	if u.User != nil {
		return "", fmt.Errorf("URL has userinfo")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "", fmt.Errorf("URL has a fragment")
	}
	// The authority and the rest exactly as written, after "scheme://".
	rest := raw[len(u.Scheme)+3:]
	auth := rest
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		auth, rest = rest[:i], rest[i:]
	} else {
		rest = ""
	}
	if strings.Contains(auth, "%") {
		return "", fmt.Errorf("URL host has a percent-escape or zone")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" {
		return "", fmt.Errorf("URL has no host")
	}
	if strings.Contains(host, ":") && net.ParseIP(host) == nil || strings.Trim(host, "abcdefghijklmnopqrstuvwxyz0123456789.-_:") != "" {
		return "", fmt.Errorf("URL host is not a host name or IP address")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return "", fmt.Errorf("URL scheme is not http or https")
	}
	if scheme == "https" && port == "443" || scheme == "http" && port == "80" {
		port = ""
	}
	hostport := host
	switch {
	case port != "":
		hostport = net.JoinHostPort(host, port)
	case strings.Contains(host, ":"):
		hostport = "[" + host + "]"
	}
	return scheme + "://" + hostport + rest, nil
}
