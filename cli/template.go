package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"

	"k8s.io/client-go/util/jsonpath"
	"k8s.io/kubectl/pkg/cmd/get"
)

// The -o formats of ls and history that kubectl users bring: a JSONPath template
// over the output's JSON (-o jsonpath='{.releases[*].name}'), and columns of
// JSONPath expressions over each row (-o custom-columns=NAME:.name,REV:.revision).
const (
	formatJSONPath      = "jsonpath="
	formatCustomColumns = "custom-columns="
)

// isTemplate reports whether format is -o jsonpath= or -o custom-columns=.
func isTemplate(format string) bool {
	return strings.HasPrefix(format, formatJSONPath) || strings.HasPrefix(format, formatCustomColumns)
}

// column is one column of -o custom-columns: its header and its expression.
type column struct {
	header string
	path   *jsonpath.JSONPath
}

// parseTemplate checks a template format before anything is read: the JSONPath
// of -o jsonpath=, or the columns of -o custom-columns=, each HEADER:EXPRESSION
// with kubectl's relaxed expressions (.name for {.name}).
func parseTemplate(format string) (*jsonpath.JSONPath, []column, error) {
	if tmpl, ok := strings.CutPrefix(format, formatJSONPath); ok {
		jp := jsonpath.New("output").AllowMissingKeys(true)
		if err := jp.Parse(tmpl); err != nil {
			return nil, nil, usageErrorf("-o jsonpath: %v", err)
		}
		return jp, nil, nil
	}
	spec := strings.TrimPrefix(format, formatCustomColumns)
	if spec == "" {
		return nil, nil, usageErrorf("-o custom-columns= needs columns, such as -o custom-columns=NAME:.name,REVISION:.revision")
	}
	var cols []column
	for _, part := range strings.Split(spec, ",") {
		header, expr, ok := strings.Cut(part, ":")
		if !ok || header == "" {
			return nil, nil, usageErrorf("-o custom-columns: %q is not HEADER:EXPRESSION", part)
		}
		relaxed, err := get.RelaxedJSONPathExpression(expr)
		if err != nil {
			return nil, nil, usageErrorf("-o custom-columns: %s: %v", header, err)
		}
		jp := jsonpath.New(header).AllowMissingKeys(true)
		if err := jp.Parse(relaxed); err != nil {
			return nil, nil, usageErrorf("-o custom-columns: %s: %v", header, err)
		}
		cols = append(cols, column{header: header, path: jp})
	}
	return nil, cols, nil
}

// printTemplate writes v, as its JSON reads, through the template of format:
// -o jsonpath= over the whole of it, -o custom-columns= over each element of its
// list field items (releases, revisions), one row each, "<none>" where an
// expression finds nothing, as kubectl prints them.
func printTemplate(w io.Writer, format string, v any, items string, noHeaders bool) error {
	jp, cols, err := parseTemplate(format)
	if err != nil {
		return err
	}
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	var data map[string]any
	if err := json.Unmarshal(js, &data); err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	if jp != nil {
		return jp.Execute(w, data)
	}
	// kubectl's tab writer (printers.GetNewTabWriter): cells of at least 6
	// columns, padded by 3.
	tw := tabwriter.NewWriter(w, 6, 4, 3, ' ', 0)
	if !noHeaders {
		headers := make([]any, len(cols))
		for i, c := range cols {
			headers[i] = c.header
		}
		row(tw, headers...)
	}
	list, _ := data[items].([]any)
	for _, it := range list {
		cells := make([]any, len(cols))
		for i, c := range cols {
			cells[i] = columnValue(c.path, it)
		}
		row(tw, cells...)
	}
	return tw.Flush()
}

// columnValue is what expression p finds in item: its values joined with
// commas, "<none>" when it finds none.
func columnValue(p *jsonpath.JSONPath, item any) string {
	results, err := p.FindResults(item)
	if err != nil {
		return "<none>"
	}
	var vals []string
	for _, rs := range results {
		for _, r := range rs {
			if r.Kind() == reflect.Interface && r.IsNil() {
				continue
			}
			var b strings.Builder
			if err := p.PrintResults(&b, []reflect.Value{r}); err != nil {
				return "<none>"
			}
			vals = append(vals, b.String())
		}
	}
	if len(vals) == 0 {
		return "<none>"
	}
	return strings.Join(vals, ",")
}
