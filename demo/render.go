package demo

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
)

// renderChart does what Helm's renderResources does for install and upgrade:
// render every template, take NOTES.txt apart, split hooks from manifests and join
// the manifests in install order, each under its "# Source:" line.
func renderChart(ch *chart.Chart, vals map[string]any, ro chartutil.ReleaseOptions) (manifest string, hooks []*release.Hook, notes string, err error) {
	return renderWith(ch, vals, ro, sortManifests)
}

// sorter splits rendered files into hooks and manifests, in install order.
type sorter func(files map[string]string) ([]*release.Hook, []releaseutil.Manifest, error)

// renderWith is renderChart with sort as its SortManifests.
func renderWith(ch *chart.Chart, vals map[string]any, ro chartutil.ReleaseOptions, sort sorter) (manifest string, hooks []*release.Hook, notes string, err error) {
	top, err := chartutil.ToRenderValues(ch, vals, ro, chartutil.DefaultCapabilities)
	if err != nil {
		return "", nil, "", err
	}
	files, err := engine.Render(ch, top)
	if err != nil {
		return "", nil, "", fmt.Errorf("render %s: %w", ch.Name(), err)
	}
	notesKey := path.Join(ch.Name(), "templates", "NOTES.txt")
	notes = files[notesKey]
	delete(files, notesKey)
	hooks, manifests, err := sort(files)
	if err != nil {
		return "", nil, "", fmt.Errorf("sort manifests of %s: %w", ch.Name(), err)
	}
	var b bytes.Buffer
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	return b.String(), hooks, notes, nil
}

// sortManifests is Helm's releaseutil.SortManifests in install order, on
// files whose long runs of base64 and prose (the samples' generated data and
// descriptions, most of their bytes) are first replaced by short stand-ins, and
// put back in what it returns. SortManifests splits the files with a regular
// expression and parses each document whole for its head; on the samples'
// megabytes that was most of the cost of rendering them. A run holds no line
// break, '-', ':', '#', ',' or quote, and starts and ends with neither a space
// nor a tab, so neither the split nor what YAML reads of a head changes; files
// where a stand-in's text already occurs are sorted as they are.
func sortManifests(files map[string]string) ([]*release.Hook, []releaseutil.Manifest, error) {
	sk := skeleton{runs: map[string]string{}}
	short := make(map[string]string, len(files))
	for name, content := range files {
		short[name] = sk.shorten(content)
	}
	if sk.clash {
		return releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	}
	hooks, manifests, err := releaseutil.SortManifests(short, nil, releaseutil.InstallOrder)
	if err != nil || len(sk.runs) == 0 {
		return hooks, manifests, err
	}
	pairs := make([]string, 0, 2*len(sk.runs))
	for token, run := range sk.runs {
		pairs = append(pairs, token, run)
	}
	back := strings.NewReplacer(pairs...)
	for i := range manifests {
		manifests[i].Content = back.Replace(manifests[i].Content)
	}
	for _, h := range hooks {
		h.Manifest = back.Replace(h.Manifest)
	}
	return hooks, manifests, nil
}

// minRun is the length from which a run of base64 is replaced: longer than
// any stand-in, and than a Kubernetes name (63).
const minRun = 64

// skeleton replaces runs of base64 with stand-ins and remembers them.
type skeleton struct {
	runs  map[string]string // stand-in → run
	clash bool              // a stand-in's text occurs in the files
}

// shorten returns s with each run of at least minRun characters of base64 or
// prose (letters, digits, "+/=_." and inner spaces: a run starts and ends with
// another character) replaced by a stand-in: "zqzq", its number, "qzqz".
func (sk *skeleton) shorten(s string) string {
	if strings.Contains(s, "zqzq") {
		sk.clash = true
	}
	var b strings.Builder
	b.Grow(len(s) / 4)
	done := 0 // s[:done] is written
	for i := 0; i < len(s); {
		if !isRunByte(s[i]) || s[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(s) && isRunByte(s[j]) {
			j++
		}
		end := j
		for s[end-1] == ' ' {
			end--
		}
		if end-i >= minRun {
			token := "zqzq" + strconv.Itoa(len(sk.runs)) + "qzqz"
			sk.runs[token] = s[i:end]
			b.WriteString(s[done:i])
			b.WriteString(token)
			done = end
		}
		i = j
	}
	b.WriteString(s[done:])
	return b.String()
}

// isRunByte reports whether c may be in a run: base64's alphabets without '-'
// (which starts YAML's separator and list items), '.', and a space.
func isRunByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '_' || c == '.' || c == ' '
}
