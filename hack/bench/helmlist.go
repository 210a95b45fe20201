package main

import (
	"fmt"
	"strings"
)

// helmListResult is the listing of Helm's own copy of the fleet: chunkview reading
// Helm's Secrets driver beside Helm's action.List, on the same records.
type helmListResult struct {
	Releases int
	Rows     []summary // chunkview, Helm, floor
}

// helmListing lists the releases of the fleet's Helm copy (namespaces helm-NN)
// with chunkview's Secrets store and with Helm's action.List, and checks that both
// print the same rows.
func (m *measurer) helmListing(rep *report) error {
	helmReleases := 0
	for _, s := range m.f.Specs {
		if s.fitsHelm() {
			helmReleases++
		}
	}
	rows, err := compare("list (Helm's Secrets)", m.runs, []contender{
		m.chunkview("chunkview ls -A --driver secret -o json", helmReleases, "ls", "-A", "--driver", "secret", "-o", "json"),
		m.peer("Helm v3 action.List (helm ls -A --all)", helmReleases, "helm-list"),
		m.peer("floor: metadata-only list of Helm's Secrets", helmReleases*revisions, "helm-floor"),
	})
	if err != nil {
		return err
	}
	if err := sameItems(rows[0], rows[1]); err != nil {
		return fmt.Errorf("list (Helm's Secrets): %w", err)
	}
	rep.HelmList = &helmListResult{Releases: helmReleases, Rows: rows}
	return nil
}

func (r *report) helmListMarkdown(b *strings.Builder) {
	h := r.HelmList
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("## Listing Helm's Secrets releases\n\n")
	p("The same %d releases as Helm's Secrets driver stores them (owner `helm`, namespaces `helm-00`..`helm-%02d`,\n", h.Releases, r.Fleet.Shape.Namespaces-1)
	p("%d revisions): `chunkview ls -A --driver secret -o json` beside Helm's `action.List` with `All` and\n", h.Releases*revisions)
	p("`AllNamespaces` (`helm ls -A --all`). Both printed the same releases, revisions, statuses, charts and\n")
	cv := h.Rows[0]
	p("versions. chunkview lists the metadata of every record (one request), then the records not\n")
	p("superseded with their data, in pages (%d %s here), and reads each only up to its\n", cv.Requests-1, map[bool]string{true: "request", false: "requests"}[cv.Requests-1 == 1])
	p("chart's metadata: its bytes are the latest revision of each release, whole, since the API server\n")
	p("sends a Secret's data whole or not at all. Helm lists every record with its data and decodes each\n")
	p("whole. The floor is chunkview's first request alone: the metadata of the %d records.\n\n", h.Releases*revisions)
	summaryTable(b, h.Rows)
	p("\nchunkview against the others, same run:\n\n")
	p("| chunkview vs | wall time | requests | bytes received | peak memory |\n|---|---|---|---|---|\n")
	for _, o := range h.Rows[1:] {
		p("| %s | %s | %s | %s | %s |\n", o.Label, ratio(float64(cv.Wall), float64(o.Wall)), ratio(float64(cv.Requests), float64(o.Requests)),
			ratio(float64(cv.Bytes), float64(o.Bytes)), ratio(float64(cv.MaxRSS), float64(o.MaxRSS)))
	}
	p("\n")
}
