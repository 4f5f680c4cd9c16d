package sources

// What the hosts refuse in a catalogue that encoding/json would read: Codex
// (serde, strict structures) and Claude Code (a schema for the owner).

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// codexInstallation are the values of an entry's policy.installation that
// Codex reads; any other one makes it refuse the whole file ("unknown
// variant").
var codexInstallation = map[string]bool{"NOT_AVAILABLE": true, "AVAILABLE": true, "INSTALLED_BY_DEFAULT": true}

// checkCodexCatalogue refuses a Codex catalogue that Codex itself refuses
// as a whole, whichever plugin is asked for. Codex 0.171 reads the file
// with serde into structs, which refuse ("invalid marketplace file")
// a member written twice in the top-level object, in an entry or in its
// policy ("duplicate field", also when one of the two spells its name
// with an escape), an entry or a policy that is not an object, null
// included ("invalid type"), and a policy.installation other than its
// three values, null included ("unknown variant").
// encoding/json, and Claude Code, keep the last of a repeated name: read
// so, bundlectl would install from a file Codex refuses, and from the
// definition Codex never settled on. A repeated name whose value Codex
// ignores is refused too (bundlectl does not know every field Codex
// reads): a refusal, never a guess.
func checkCodexCatalogue(data []byte, plugins []json.RawMessage, display string) error {
	bad := func(field, msg string) error {
		return &Error{Source: display, Path: CodexCatalogue + ": " + field, Reason: msg, Err: ErrRefused}
	}
	if key, ok := repeatedKey(data); ok {
		return bad(bundle.FieldPath("", key), codexTwice)
	}
	for i, raw := range plugins {
		at := fmt.Sprintf("plugins[%d]", i)
		ms, isObject, ok := jsonobj.Scan(raw, jsonobj.AnyKeys)
		if !ok || !isObject {
			return bad(at, "is not an object; Codex refuses the whole marketplace file for it (\"invalid type … expected struct\")")
		}
		if key, ok := repeatedKey(raw); ok {
			return bad(bundle.FieldPath(at, key), codexTwice)
		}
		policy := lastValue(ms, "policy")
		if policy == nil {
			continue
		}
		pm, isObject, ok := jsonobj.Scan(policy, jsonobj.AnyKeys)
		if !ok || !isObject {
			return bad(at+".policy", "is not an object; Codex refuses the whole marketplace file for it (\"invalid type … expected struct\")")
		}
		if key, ok := repeatedKey(policy); ok {
			return bad(bundle.FieldPath(at+".policy", key), codexTwice)
		}
		inst := lastValue(pm, "installation")
		if inst == nil {
			continue
		}
		var v string
		if json.Unmarshal(inst, &v) != nil || !codexInstallation[v] {
			return bad(at+".policy.installation", "is not one of NOT_AVAILABLE, AVAILABLE, INSTALLED_BY_DEFAULT (letter case included); Codex refuses the whole marketplace file for it (\"unknown variant\")")
		}
	}
	return nil
}

// codexTwice is the reason of a member Codex refuses as written twice.
const codexTwice = "is written twice in one object (perhaps once with an escape, as \"\\u0073ource\"); Codex refuses the whole marketplace file for it (\"duplicate field\"), so bundlectl does not pick one"

// repeatedKey returns the first name the JSON object raw holds twice (as
// encoding/json decodes names: "source" and "\u0073ource" are one name).
func repeatedKey(raw []byte) (string, bool) {
	ms, isObject, ok := jsonobj.Scan(raw, jsonobj.AnyKeys)
	if !ok || !isObject {
		return "", false
	}
	seen := make(map[string]bool, len(ms))
	for _, m := range ms {
		if seen[m.Key] {
			return m.Key, true
		}
		seen[m.Key] = true
	}
	return "", false
}

// lastValue is the value of the last member named key, as Codex would
// have it were the name not repeated (nil when there is none).
func lastValue(ms []jsonobj.Member, key string) json.RawMessage {
	var v json.RawMessage
	for _, m := range ms {
		if m.Key == key {
			v = m.Val
		}
	}
	return v
}

// withCatalogueHint gives a refusal of a marketplace's catalogue, or a
// plugin it does not list, the command that shows the catalogue: the
// lines naming the field refused, or every entry's name, in a local
// one (withCatalogueLines); the catalogue itself, at the commit read, in
// a git one (ShowGitFile), whose copy only git holds.
func withCatalogueHint(err error, m *spec, g *gitRepo, commit, format string) error {
	var e *Error
	if !errors.As(err, &e) || e.Fix != "" {
		return err
	}
	if m.kind != KindDir {
		if g != nil {
			e.Fix = ShowGitFile(g.remote, commit, catalogueFile(format))
		}
		return err
	}
	if errors.Is(err, ErrNotFound) {
		p := filepath.Join(m.path, filepath.FromSlash(catalogueFile(format)))
		if !hasControl(p) {
			e.Fix = "grep -n -F -e " + bundle.ShellArg(`"name"`) + " " + bundle.ShellArg(p)
		}
		return err
	}
	return withCatalogueLines(err, m, format)
}

// withCatalogueLines gives the refusal of a field of a local
// marketplace's catalogue (its Path "<file>: plugins[0].policy.installation")
// the command that prints the lines naming that field, where the value
// refused shows — each of a name written twice, too.
func withCatalogueLines(err error, m *spec, format string) error {
	var e *Error
	if m == nil || m.kind != KindDir || !errors.As(err, &e) || e.Fix != "" || !errors.Is(err, ErrRefused) {
		return err
	}
	file := catalogueFile(format)
	p := filepath.Join(m.path, filepath.FromSlash(file))
	field, ok := strings.CutPrefix(e.Path, file+": ")
	if !ok || strings.HasSuffix(field, `"]`) || hasControl(p) {
		return err // no field, or one of an odd name (FieldPath's ["…"])
	}
	if strings.HasPrefix(e.Reason, "missing") {
		// No line names it: the catalogue's start shows what is there.
		e.Fix = "head -c 2000 " + bundle.ShellArg(p)
		return err
	}
	key := field
	if i := strings.LastIndexAny(key, ".]"); i >= 0 {
		key = key[i+1:]
	}
	if key == "" || strings.HasPrefix(field, "plugins[") && !strings.Contains(field, ".") {
		key = "name" // an entry as a whole: the entries' names show where each starts
	}
	if hasControl(key) || strings.ContainsAny(key, `"\`) {
		return err
	}
	e.Fix = "grep -n -F -e " + bundle.ShellArg(`"`+key+`"`) + " " + bundle.ShellArg(p)
	return err
}

// checkClaudeOwner refuses the owner of a Claude Code catalogue that
// Claude Code 2.1.332 refuses the whole marketplace for ("Invalid schema:
// owner…" at claude plugin marketplace add): none (or only "Owner"), not
// an object, a name that is not a string or is empty, an email that is
// not a string. It returns the field and why, or "" when it is accepted.
func checkClaudeOwner(raw json.RawMessage) (field, msg string) {
	const refuses = "; Claude Code refuses the whole marketplace for it (\"Invalid schema: %s\")"
	ms, isObject, ok := jsonobj.Scan(raw, jsonobj.AnyKeys)
	switch {
	case raw == nil:
		return "owner", "missing" + fmt.Sprintf(refuses, "owner: Invalid input: expected object, received undefined")
	case !ok || !isObject:
		return "owner", "is not an object" + fmt.Sprintf(refuses, "owner: Invalid input: expected object")
	}
	var name string
	switch v := lastValue(ms, "name"); {
	case v == nil:
		return "owner.name", "missing" + fmt.Sprintf(refuses, "owner.name: Invalid input: expected string, received undefined")
	case json.Unmarshal(v, &name) != nil:
		return "owner.name", "is not a string" + fmt.Sprintf(refuses, "owner.name: Invalid input: expected string")
	case name == "":
		return "owner.name", "is empty" + fmt.Sprintf(refuses, "owner.name: Author name cannot be empty")
	}
	var email string
	if v := lastValue(ms, "email"); v != nil && json.Unmarshal(v, &email) != nil {
		return "owner.email", "is not a string" + fmt.Sprintf(refuses, "owner.email: Invalid input: expected string")
	}
	return "", ""
}
