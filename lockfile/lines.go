package lockfile

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// lineIndex maps a field path ("version", "bundle[2].source.commit") to
// the line that sets it, so a semantic error can name its line. It is
// built from go-toml's parser after the strict decode succeeded; inline
// tables and dotted keys are indexed by their first line.
type lineIndex map[string]int

func indexLines(data []byte) lineIndex {
	idx := lineIndex{}
	var p unstable.Parser
	p.Reset(data)
	counts := map[string]int{} // array-of-tables path → elements seen
	var table string           // path of the current table
	resolve := func(parts []string, array bool) string {
		path := ""
		for i, k := range parts {
			if path != "" {
				path += "."
			}
			path += k
			last := i == len(parts)-1
			if n, ok := counts[path]; ok && !(last && array) {
				path += fmt.Sprintf("[%d]", n)
			}
		}
		if array {
			counts[path]++
			path += fmt.Sprintf("[%d]", counts[path])
		}
		return path
	}
	for p.NextExpression() {
		e := p.Expression()
		var parts []string
		line := 0
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable, unstable.KeyValue:
			it := e.Key()
			for it.Next() {
				k := it.Node()
				if line == 0 {
					line = p.Shape(k.Raw).Start.Line
				}
				parts = append(parts, string(k.Data))
			}
		default:
			continue
		}
		switch e.Kind {
		case unstable.Table:
			table = resolve(parts, false)
			idx.set(table, line)
		case unstable.ArrayTable:
			table = resolve(parts, true)
			idx.set(table, line)
		case unstable.KeyValue:
			key := strings.Join(parts, ".")
			if table != "" {
				key = table + "." + key
			}
			idx.set(key, line)
		}
	}
	return idx
}

func (idx lineIndex) set(k string, line int) {
	if _, ok := idx[k]; !ok {
		idx[k] = line
	}
}

// find returns the line of field, or of its nearest indexed parent (a
// missing key is reported on its table's line); 0 when unknown.
func (idx lineIndex) find(field string) int {
	for f := field; f != ""; {
		if l, ok := idx[f]; ok {
			return l
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return 0
}
