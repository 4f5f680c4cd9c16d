package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
	"github.com/bundlectl/bundlectl/params"
)

// MaxInputBytes bounds a tool input; larger input is refused before
// parsing.
const MaxInputBytes = 4 << 20

// Bounds on what an InputError carries, so a huge or hostile input cannot
// make a huge message.
const (
	maxInputProblems   = 20
	maxProblemsInError = 3
	maxProblemText     = 160
)

// SchemaError is returned when a params schema does not compile.
type SchemaError struct{ Err error }

func (e *SchemaError) Error() string {
	return "params is not a usable JSON Schema: " + truncateText(e.Err.Error(), 400)
}

func (e *SchemaError) Unwrap() error { return e.Err }

// CompileParams compiles a tool's params schema (package params: JSON
// Schema draft 2020-12, or draft-07 when it says so). Empty params accept
// any JSON object. No reference outside the schema is ever resolved;
// patterns use Go's RE2 engine, so matching is linear time.
func CompileParams(schema json.RawMessage) (*params.Schema, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		// No params: ValidateInput's nil schema is params.AnyObject, with
		// the same answers, and compiles nothing (compiling cost a
		// one-shot run 0.2 ms: the schema library's first use).
		return nil, nil
	}
	sch, err := params.Compile(schema)
	if err != nil {
		return nil, &SchemaError{Err: err}
	}
	return sch, nil
}

// InputProblem is one place where the input breaks the schema. Path is a
// JSON pointer into the input ("" is the whole input).
type InputProblem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// InputError is returned when a tool input is refused; no process was
// started. Either Syntax is set (not a single JSON value) or Problems
// lists where it breaks the schema. Neither repeats input values.
type InputError struct {
	Syntax   string
	Problems []InputProblem
	// More counts problems left out of Problems.
	More int
}

func (e *InputError) Error() string {
	if e.Syntax != "" {
		return "tool input is not a single JSON value: " + e.Syntax
	}
	var b strings.Builder
	b.WriteString("tool input does not match the tool's params schema")
	for i, p := range e.Problems {
		if i == maxProblemsInError {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-i+e.More)
			break
		}
		path := p.Path
		if path == "" {
			path = "(root)"
		}
		fmt.Fprintf(&b, "; at %s: %s", path, p.Message)
	}
	return b.String()
}

// ValidateInput checks that input is exactly one JSON value with no
// duplicate object keys, and that it matches sch; a nil sch accepts any
// JSON object. Numbers are checked as IEEE 754 doubles, as the
// JavaScript hosts read them; the child receives the input's bytes
// unchanged. Duplicate keys are refused because parsers disagree on which
// one wins: the child must see what was validated.
func ValidateInput(sch *params.Schema, input []byte) error {
	if len(input) > MaxInputBytes {
		return &InputError{Syntax: fmt.Sprintf("%d bytes, more than the %d-byte limit", len(input), MaxInputBytes)}
	}
	if err := checkSingleValue(input); err != nil {
		return &InputError{Syntax: truncateText(err.Error(), maxProblemText)}
	}
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return &InputError{Syntax: truncateText(err.Error(), maxProblemText)}
	}
	if sch == nil {
		if _, ok := v.(map[string]any); !ok {
			return &InputError{Problems: []InputProblem{{Path: "", Message: "got " + jsonKind(v) + `, want "object"`}}}
		}
		return nil
	}
	if p := sch.Validate(v); p != nil {
		return &InputError{Problems: []InputProblem{{Path: truncateText(p.Path, maxProblemText), Message: truncateText(p.Message, maxProblemText)}}}
	}
	return nil
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == math.Trunc(v) {
			return "integer" // as the schema library names it
		}
		return "number"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// truncateText escapes control and bidirectional characters and cuts s
// to at most n bytes of escaped text, marking the cut.
func truncateText(s string, n int) string {
	s = bundle.Sanitize(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// checkSingleValue walks input token by token: exactly one JSON value,
// nothing after it, and no object with the same key twice.
func checkSingleValue(input []byte) error { return checkValue(input, false) }

func checkValue(input []byte, foldInside bool) error {
	if _, _, ok := jsonobj.Scan(input, keyRule(foldInside)); ok {
		return nil
	}
	// Refused: encoding/json's walk says why, as it said before Scan.
	if err := walkCheck(input, foldInside); err != nil {
		return err
	}
	return errors.New("not one JSON value with each key once") // Scan and the walk disagree: refuse all the same
}

func keyRule(foldInside bool) jsonobj.KeyRule {
	if foldInside {
		return jsonobj.UniqueFoldedInside
	}
	return jsonobj.UniqueKeys
}

// walkCheck is checkValue by encoding/json's Decoder.Token, 60 times
// slower than jsonobj.Scan (FuzzCheckValue holds the two to the same
// answers): it words the refusal.
func walkCheck(input []byte, foldInside bool) error {
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	if err := walkValue(dec, 0, foldInside); err != nil {
		if err == io.EOF {
			return errors.New("empty input")
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more data after the first JSON value")
	}
	return nil
}

// maxInputDepth is encoding/json's own nesting limit.
const maxInputDepth = 10000

// walkValue walks one value inside depth containers; with
// foldInside, an object below the top level may not hold two keys that
// differ only in letter case.
func walkValue(dec *json.Decoder, depth int, foldInside bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth++; depth > maxInputDepth {
		return fmt.Errorf("nested deeper than %d", maxInputDepth)
	}
	switch d {
	case '[':
		for dec.More() {
			if err := walkValue(dec, depth, foldInside); err != nil {
				return unexpectedEOF(err)
			}
		}
	case '{':
		fold := foldInside && depth > 1
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return unexpectedEOF(err)
			}
			key, _ := kt.(string)
			k := key
			if fold {
				k = foldKey(key)
			}
			if seen[k] {
				return fmt.Errorf("duplicate object key %s", truncateText(fmt.Sprintf("%q", key), 80))
			}
			seen[k] = true
			if err := walkValue(dec, depth, foldInside); err != nil {
				return unexpectedEOF(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return unexpectedEOF(err)
	}
	return nil
}

// foldKey maps key to one representative of its case-folding orbit per
// rune (the smallest), so that keys strings.EqualFold calls equal — "K"
// and the Kelvin sign, "s" and "ſ" included, as encoding/json matches
// them — map to the same string.
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, key)
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
