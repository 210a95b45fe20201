package fit

import (
	"compress/gzip"
	"encoding/json"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// Breakdown is what takes the room in a record.
type Breakdown struct {
	// Parts are storage.Breakdown's parts, largest (compressed alone) first:
	// chart templates, files, CRDs, values and schema, the user's values, the
	// rendered manifest, hooks and notes.
	Parts []storage.Part `json:"parts"`
	// Largest are the single items that take the most, compressed alone.
	Largest []Item `json:"largest"`
}

// Item is one file, hook, manifest document or set of values of a record.
type Item struct {
	// Kind is template, file, crd, hook, manifest or values.
	Kind string `json:"kind"`
	// Name is the file's path in the chart, the hook's or the manifest
	// document's source template, or "chart values" / "user-supplied values".
	Name string `json:"name"`
	// Bytes is the item's own size: the file's bytes, the document's text.
	Bytes int `json:"bytes"`
	// JSONBytes is what it takes in the release's JSON (a chart file is
	// base64 there), GzipBytes that JSON compressed alone.
	JSONBytes int `json:"jsonBytes"`
	GzipBytes int `json:"gzipBytes"`
}

// LargestItems is how many single items Breakdown reports.
const LargestItems = 8

// Break returns what takes the room in rls: its parts, and its largest items.
// The subcharts part of storage.Breakdown is left out: a release's JSON holds
// its chart but not the chart's dependencies (an unexported field of Helm's
// chart.Chart), so subcharts take no room in the record beyond what they
// render into the manifest.
func Break(rls *release.Release) Breakdown {
	var parts []storage.Part
	for _, p := range storage.Breakdown(rls) {
		if p.Name != "subcharts" {
			parts = append(parts, p)
		}
	}
	return Breakdown{Parts: parts, Largest: largest(items(rls), LargestItems)}
}

// items lists every item of rls with its JSON, not yet compressed.
func items(rls *release.Release) []itemJSON {
	var out []itemJSON
	add := func(kind, name string, n int, v any) {
		js, err := json.Marshal(v)
		if err == nil {
			out = append(out, itemJSON{Item: Item{Kind: kind, Name: name, Bytes: n, JSONBytes: len(js)}, js: js})
		}
	}
	if c := rls.Chart; c != nil {
		for _, f := range c.Templates {
			if f != nil {
				add("template", f.Name, len(f.Data), f)
			}
		}
		for _, f := range c.Files {
			if f == nil {
				continue
			}
			kind := "file"
			if strings.HasPrefix(f.Name, "crds/") {
				kind = "crd"
			}
			add(kind, f.Name, len(f.Data), f)
		}
		if len(c.Values) > 0 {
			js, _ := json.Marshal(c.Values)
			add("values", "chart values", len(js), c.Values)
		}
	}
	if len(rls.Config) > 0 {
		js, _ := json.Marshal(rls.Config)
		add("values", "user-supplied values", len(js), rls.Config)
	}
	for _, h := range rls.Hooks {
		if h != nil {
			add("hook", h.Path, len(h.Manifest), h)
		}
	}
	for _, d := range manifestDocs(rls.Manifest) {
		add("manifest", d.source, len(d.text), d.text)
	}
	return out
}

type itemJSON struct {
	Item
	js []byte
}

// largest returns the n items whose JSON compresses to the most bytes, largest
// first. Compressed alone, an item never takes much more than its JSON, so the
// items are compressed largest JSON first, and no further once the next one's
// JSON could not beat the n-th found.
func largest(all []itemJSON, n int) []Item {
	sort.SliceStable(all, func(i, j int) bool { return all[i].JSONBytes > all[j].JSONBytes })
	var top []Item
	var gz sizer
	for _, it := range all {
		if len(top) >= n && gzipBound(it.JSONBytes) < top[n-1].GzipBytes {
			break
		}
		it.GzipBytes = gz.size(it.js)
		top = append(top, it.Item)
		sort.SliceStable(top, func(i, j int) bool { return top[i].GzipBytes > top[j].GzipBytes })
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}

// gzipBound is more than gzip can turn n bytes into: deflate adds 5 bytes per
// stored block of up to 64 KiB to data it cannot shrink, gzip 18 bytes.
func gzipBound(n int) int { return n + n/1024 + 64 }

// manifestDoc is one document of a rendered manifest and the template it came
// from.
type manifestDoc struct{ source, text string }

// manifestDocs splits a manifest as Helm writes it: documents joined by "---\n",
// each starting with a "# Source: PATH" line.
func manifestDocs(m string) []manifestDoc {
	var out []manifestDoc
	for _, d := range strings.Split(m, "---\n") {
		if strings.TrimSpace(d) == "" {
			continue
		}
		src := "(no source)"
		if line, _, _ := strings.Cut(strings.TrimLeft(d, "\n"), "\n"); strings.HasPrefix(line, "# Source: ") {
			src = strings.TrimPrefix(line, "# Source: ")
		}
		out = append(out, manifestDoc{source: src, text: d})
	}
	return out
}

// sizer measures gzip streams at best compression, as the stores compress,
// with one compressor: a new one costs more than a small item's compression.
type sizer struct {
	zw *gzip.Writer
	cw countWriter
}

// size is the length of b's gzip stream.
func (s *sizer) size(b []byte) int {
	s.cw.n = 0
	if s.zw == nil {
		s.zw, _ = gzip.NewWriterLevel(&s.cw, gzip.BestCompression)
	} else {
		s.zw.Reset(&s.cw)
	}
	_, _ = s.zw.Write(b)
	_ = s.zw.Close()
	return s.cw.n
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
