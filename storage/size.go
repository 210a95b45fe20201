package storage

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage/chunked"
)

// Part is one component of a release and what it costs, as JSON and compressed on
// its own. Compressed sizes of parts do not add up exactly to the whole stream's,
// since gzip shares a window across parts, but they show which part is heavy.
type Part struct {
	Name       string `json:"name"`
	Items      int    `json:"items"`
	JSONBytes  int    `json:"jsonBytes"`
	GzipBytes  int    `json:"gzipBytes"`
	LargestOne string `json:"largest,omitempty"`
}

// Breakdown returns the parts of rls that take its space, largest first: chart
// templates, chart files, CRDs, chart values, user-supplied values, the computed
// manifest, hooks and notes.
func Breakdown(rls *release.Release) []Part {
	var parts []Part
	add := func(name string, items int, largest string, v any) {
		js, err := json.Marshal(v)
		if err != nil {
			return
		}
		parts = append(parts, Part{Name: name, Items: items, JSONBytes: len(js), GzipBytes: gzipLen(js), LargestOne: largest})
	}
	if c := rls.Chart; c != nil {
		add("chart templates", len(c.Templates), largestFile(c.Templates), c.Templates)
		var files, crds []any
		var fileNames, crdNames []fileSize
		for _, f := range c.Files {
			if f == nil {
				continue
			}
			if strings.HasPrefix(f.Name, "crds/") {
				crds = append(crds, f)
				crdNames = append(crdNames, fileSize{f.Name, len(f.Data)})
				continue
			}
			files = append(files, f)
			fileNames = append(fileNames, fileSize{f.Name, len(f.Data)})
		}
		add("chart files", len(files), largestOf(fileNames), files)
		add("chart CRDs", len(crds), largestOf(crdNames), crds)
		add("chart values", len(c.Values), "", c.Values)
		add("chart schema", boolInt(len(c.Schema) > 0), "", c.Schema)
		deps := c.Dependencies()
		add("subcharts", len(deps), "", deps)
	}
	add("user-supplied values", len(rls.Config), "", rls.Config)
	add("rendered manifest", 1, "", rls.Manifest)
	var hookNames []fileSize
	for _, h := range rls.Hooks {
		if h != nil {
			hookNames = append(hookNames, fileSize{h.Path, len(h.Manifest)})
		}
	}
	add("hooks", len(rls.Hooks), largestOf(hookNames), rls.Hooks)
	if rls.Info != nil {
		add("notes", boolInt(rls.Info.Notes != ""), "", rls.Info.Notes)
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].GzipBytes > parts[j].GzipBytes })
	return parts
}

type fileSize struct {
	name string
	size int
}

func largestFile(files []*chart.File) string {
	var fs []fileSize
	for _, f := range files {
		if f != nil {
			fs = append(fs, fileSize{f.Name, len(f.Data)})
		}
	}
	return largestOf(fs)
}

func largestOf(fs []fileSize) string {
	best := fileSize{size: -1}
	for _, f := range fs {
		if f.size > best.size {
			best = f
		}
	}
	if best.size < 0 {
		return ""
	}
	return fmt.Sprintf("%s (%d bytes)", best.name, best.size)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func gzipLen(b []byte) int {
	var cw countWriter
	zw, _ := gzip.NewWriterLevel(&cw, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return cw.n
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// HelmSecretBytes returns the size of data.release that Helm's own Secrets driver
// would store for rls: base64 of the gzip (best compression) of the release's JSON.
// It fits when the result is at most MaxSecretDataBytes.
func HelmSecretBytes(rls *release.Release) (int, error) {
	js, err := json.Marshal(rls)
	if err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	if err := chunked.Compress(&buf, js); err != nil {
		return 0, err
	}
	return 4 * ((buf.Len() + 2) / 3), nil
}

// MaxHelmSecretGzipBytes is the largest gzip stream Helm's Secrets driver can store in
// one Secret, after base64: 3/4 of the limit.
const MaxHelmSecretGzipBytes = MaxSecretDataBytes / 4 * 3
