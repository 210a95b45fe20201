package main

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/chunkview/chunkview/storage"
)

// The large fleet (-fleet large, make bench-large): ten times the small fleet's
// revisions. It measures what grows with the fleet — listing every release, the
// original driver's copy, paging and the TUI's first list — against the floor of
// listing, and writes a section of its own (see reportfile.go).

// chunkviewPage is the page size of chunkview's metadata lists (kube's
// metadataPage).
const chunkviewPage = 5000

// kubectlPage is kubectl's default page size (--chunk-size).
const kubectlPage = 500

// largeResult is what the large fleet measured.
type largeResult struct {
	// List: chunkview ls -A; the floor; chunkview's index metadata in one
	// request, in pages of chunkviewPage, in pages of kubectlPage.
	List []summary
	// Orig: chunkview ls over the original driver's copy, that driver's List,
	// the floor of that copy.
	Orig []summary
	// OrigStored and OrigLatest are the gzip bytes of every revision, and of
	// the latest revisions, of the original driver's copy.
	OrigStored, OrigLatest int64
	// OrigChunked is how many of that copy's latest revisions have more than
	// one chunk; OrigChunks, how many chunks those latest revisions have in all.
	OrigChunked, OrigChunks int
	TUI                     *tuiResult
}

// runLarge measures the large fleet and writes its section of the report.
func (m *measurer) runLarge(rep *report, skip map[string]bool) error {
	lr := &largeResult{}
	rep.Large = lr
	if !skip["list"] {
		if err := m.largeListing(lr); err != nil {
			return err
		}
	}
	if !skip["tui"] {
		if err := m.tui(rep); err != nil {
			return err
		}
		lr.TUI = rep.TUI
	}
	rep.Finished = time.Now()
	text := rep.largeMarkdown()
	fmt.Println(text)
	return writeReport(rep.Options, text, largeSection)
}

func (m *measurer) largeListing(lr *largeResult) error {
	f := m.f
	idx := len(f.Specs) * revisions
	rows, err := compare("list (large fleet)", m.runs, []contender{
		m.chunkview("chunkview ls -A --driver chunked -o json", len(f.Specs), "ls", "-A", "--driver", "chunked", "-o", "json", "--owner", fleetOwner),
		m.peer("floor: metadata-only list of the same index Secrets, bare", idx, "floor", "-child-namespace", floorNamespace, "-child-owner", floorOwner),
		m.peer("metadata-only list of chunkview's index Secrets, one request", idx, "floor", "-child-owner", fleetOwner),
		m.peer(fmt.Sprintf("the same in pages of %d (chunkview's page size)", chunkviewPage), idx, "floor", "-child-owner", fleetOwner, "-child-page", fmt.Sprint(chunkviewPage)),
		m.peer(fmt.Sprintf("the same in pages of %d (kubectl's default)", kubectlPage), idx, "floor", "-child-owner", fleetOwner, "-child-page", fmt.Sprint(kubectlPage)),
	})
	if err != nil {
		return err
	}
	lr.List = rows
	orig, err := compare("list (large fleet, original driver's copy)", m.runs, []contender{
		m.chunkview("chunkview ls -n "+origNamespace+" --driver chunked -o json", len(f.Orig), "ls", "-n", origNamespace, "--driver", "chunked", "-o", "json", "--owner", origOwner),
		m.peer("helm-operator-plugins v0.9.1 List", len(f.Orig), "hop-list", "-child-namespaces", origNamespace, "-child-owner", origOwner),
		m.peer("floor: metadata-only list of its index Secrets", len(f.Orig)*revisions, "floor", "-child-namespace", origNamespace, "-child-owner", origOwner),
	})
	if err != nil {
		return err
	}
	lr.Orig = orig
	return lr.origSizes(f)
}

// origSizes encodes every revision of the original driver's copy again to learn
// what it stores.
func (lr *largeResult) origSizes(f *fleet) error {
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(2)
	for _, s := range f.Orig {
		g.Go(func() error {
			for rev := 1; rev <= revisions; rev++ {
				gz, _, err := storage.EncodePayload(buildRelease(s, rev, origNamespace))
				if err != nil {
					return err
				}
				n := len(storage.Split(gz, storage.DefaultChunkSize))
				mu.Lock()
				lr.OrigStored += int64(len(gz))
				if rev == revisions {
					lr.OrigLatest += int64(len(gz))
					if n > 1 {
						lr.OrigChunked++
						lr.OrigChunks += n
					}
				}
				mu.Unlock()
			}
			return nil
		})
	}
	return g.Wait()
}

// perRun lists the ratios of a's wall time to b's, run by run: the two ran in
// turns, under the same load.
func perRun(a, b summary) string {
	var out []string
	for i := range min(len(a.Walls), len(b.Walls)) {
		out = append(out, ratio(float64(a.Walls[i]), float64(b.Walls[i])))
	}
	return strings.Join(out, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// wallSpread is a summary's median wall time with its fastest and slowest run.
func wallSpread(s summary) string {
	return fmt.Sprintf("%s (%s–%s)", ms(s.Wall), ms(s.WallMin), ms(s.WallMax))
}

func spreadTable(b *strings.Builder, rows []summary) {
	fmt.Fprintf(b, "| | wall time, median (fastest–slowest) | CPU: process + API server and etcd | API requests | bytes received | peak memory | rows |\n|---|---|---|---|---|---|---|\n")
	for _, s := range rows {
		fmt.Fprintf(b, "| %s | %s | %s + %s | %d | %s | %s | %d |\n", s.Label, wallSpread(s), ms(s.CPU), ms(s.ServerCPU), s.Requests, mb(float64(s.Bytes)), mib(s.MaxRSS), s.Count)
	}
}

func (r *report) largeMarkdown() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	f, lr := r.Fleet, r.Large
	classes := map[string]int{}
	for _, s := range f.Specs {
		classes[s.Class]++
	}
	idx := len(f.Specs) * revisions
	p("## The large fleet\n\n")
	p("Generated by `make bench-large` (`go run ./hack/bench -fleet large")
	if f.Scale != 1 {
		p(" -scale %g", f.Scale)
	}
	p("`) on %s, chunkview %s, on the machine above, measured the same way (median of %d runs, the\n", r.Started.UTC().Format("2006-01-02"), gitDescribe(), r.Options.runs)
	p("contenders interleaved).\n\n")
	p("%d releases over %d namespaces, %d revisions each (%d revisions, ten times the small fleet), seed %d, from the\n", len(f.Specs), f.Shape.Namespaces, revisions, idx, f.Seed)
	p("same generator: %d small (5-50 KB of gzip per revision), %d medium (100-%d KB), %d large (2-6 MiB, 3-7 chunks).\n",
		classes[classSmall], classes[classMedium], (100<<10+f.Shape.MediumSpan)>>10, classes[classLarge])
	p("The mix leans further to small releases than the small fleet's: %.0f%% medium and %.1f%% large, against %.0f%% and %.0f%%,\n",
		f.Shape.Medium*100, f.Shape.Large*100, shapes["small"].Medium*100, shapes["small"].Large*100)
	p("so that it seeds in minutes on this machine: ten times the revisions and index Secrets, fewer times the bytes.\n\n")
	if s := r.Seed; s != nil {
		p("- chunkview's driver (owner `%s`, namespaces `fleet-00`..`fleet-%02d`): %d revisions, %s of gzip.\n", fleetOwner, f.Shape.Namespaces-1, s.Chunkview, mb(float64(s.GzipBytes)))
		p("- helm-operator-plugins v0.9.1's driver (owner `%s`, namespace `%s`): %d of the releases (%d with a latest\n", origOwner, origNamespace, len(f.Orig), lr.OrigChunked)
		p("  revision of more than one chunk), %d revisions, %s of gzip, without chunkview's summary annotations.\n", s.Orig, mb(float64(lr.OrigStored)))
		p("- The floor's bare index Secrets (namespace `%s`): %d, one per revision.\n", floorNamespace, idx)
		p("- No copy in Helm's Secrets driver: Helm's `action.List` reads and decodes every record whole (its peak memory\n")
		p("  is about four times the records' size in the small fleet above), which here would take gigabytes; it is not\n")
		p("  run, nor is helm-operator-plugins' List over the whole fleet, which decodes every revision too.\n")
		if s.Elapsed > 0 {
			p("- Seeding took %s with %d concurrent writers.\n", ms(s.Elapsed), r.Options.writers)
		}
		p("\n")
	}

	var targets [][3]string
	target := func(name, measured string, ok bool) {
		targets = append(targets, [3]string{strings.TrimPrefix(largeTargetPrefix, "| ") + name, measured, yes(ok)})
	}
	if len(lr.List) == 5 {
		cv, floor, own, paged, kpaged := lr.List[0], lr.List[1], lr.List[2], lr.List[3], lr.List[4]
		p("### Listing the latest revision of every release\n\n")
		p("`chunkview ls -A` over the chunked copy, beside metadata-only lists (the metadata API, protobuf) of %d index\n", idx)
		p("Secrets: the floor (bare index Secrets, as the original driver writes them), and chunkview's own index\n")
		p("Secrets in one request, in pages of %d (chunkview's page size: its listing pages the same way) and in pages of\n", chunkviewPage)
		p("%d (kubectl's default).\n\n", kubectlPage)
		spreadTable(&b, lr.List)
		p("\n| chunkview ls -A vs | wall time | CPU, all processes | requests | bytes received | peak memory |\n|---|---|---|---|---|---|\n")
		for _, o := range lr.List[1:] {
			p("| %s | %s | %s | %s | %s | %s |\n", o.Label, ratio(float64(cv.Wall), float64(o.Wall)), ratio(float64(cv.CPU+cv.ServerCPU), float64(o.CPU+o.ServerCPU)),
				ratio(float64(cv.Requests), float64(o.Requests)), ratio(float64(cv.Bytes), float64(o.Bytes)), ratio(float64(cv.MaxRSS), float64(o.MaxRSS)))
		}
		p("\nCPU is the median of the runs' user and system time: the measured process's, and the API server's and\n")
		p("etcd's while it ran. On %d CPUs shared with other work, a listing cannot take less wall time than its CPU\n", runtime.NumCPU())
		p("time divided by the CPUs free to run it; the CPU ratio is the steadier of the two.\n")
		p("\nPaging the metadata list: in pages of %d it takes %d %s and %s against %s in one (%s the wall time, %s the\n",
			chunkviewPage, paged.Requests, plural(paged.Requests, "request"), ms(paged.Wall), ms(own.Wall), ratio(float64(paged.Wall), float64(own.Wall)), ratio(float64(paged.MaxRSS), float64(own.MaxRSS)))
		p("peak memory); in pages of %d, %d %s and %s (%s, %s). The bytes hardly change (%s, %s, %s):\n",
			kubectlPage, kpaged.Requests, plural(kpaged.Requests, "request"), ms(kpaged.Wall), ratio(float64(kpaged.Wall), float64(own.Wall)), ratio(float64(kpaged.MaxRSS), float64(own.MaxRSS)),
			mb(float64(own.Bytes)), mb(float64(paged.Bytes)), mb(float64(kpaged.Bytes)))
		p("a page bounds what one response holds, not what the listing reads.\n\n")
		target("`ls -A` within 2x of the floor's wall time",
			fmt.Sprintf("%s vs %s: %s (run by run, in turns: %s); CPU, all processes: %s vs %s, %s", ms(cv.Wall), ms(floor.Wall), ratio(float64(cv.Wall), float64(floor.Wall)), perRun(cv, floor),
				ms(cv.CPU+cv.ServerCPU), ms(floor.CPU+floor.ServerCPU), ratio(float64(cv.CPU+cv.ServerCPU), float64(floor.CPU+floor.ServerCPU))), cv.Wall <= 2*floor.Wall)
		target("`ls -A` within 2x of the floor's bytes",
			fmt.Sprintf("%s vs %s: %s", mb(float64(cv.Bytes)), mb(float64(floor.Bytes)), ratio(float64(cv.Bytes), float64(floor.Bytes))), cv.Bytes <= 2*floor.Bytes)
		target("`ls -A` peaks under 150 MiB",
			fmt.Sprintf("%s (floor: %s)", mib(cv.MaxRSS), mib(floor.MaxRSS)), cv.MaxRSS < 150<<20)
	}
	if len(lr.Orig) == 3 {
		cv := lr.Orig[0]
		bound := 1 + cv.Count
		p("### Over the original driver's copy\n\n")
		p("`chunkview ls` over the %d releases helm-operator-plugins wrote, whose index Secrets carry no summary. The target:\n", len(f.Orig))
		p("at most one request per release shown beyond the list (%d in all), reading no chunk Secret, and at most 20%% of\n", bound)
		p("the bytes its copy stores: %s of gzip, %s of it in the latest revisions. Of those latest revisions, %d\n",
			mb(float64(lr.OrigStored)), mb(float64(lr.OrigLatest)), lr.OrigChunked)
		p("%s more than one chunk: %d chunks, %d of them in chunk Secrets, which a row's fields do not need. chunkview\n",
			map[bool]string{true: "has", false: "have"}[lr.OrigChunked == 1], lr.OrigChunks, lr.OrigChunks-lr.OrigChunked)
		p("reads the index Secrets ten to a list selected by their keys, then one list of chunk metadata for HEALTH.\n\n")
		spreadTable(&b, lr.Orig)
		p("\n")
		target("`ls` over the original driver's releases: at most 1 + one request per release shown",
			fmt.Sprintf("%d requests for %d releases, bound %d", cv.Requests, cv.Count, bound), cv.Requests <= bound)
		target("`ls` over the original driver's releases: bytes at most 20% of what is stored",
			fmt.Sprintf("%s of %s: %s", mb(float64(cv.Bytes)), mb(float64(lr.OrigStored)), ratio(float64(cv.Bytes), float64(lr.OrigStored))), cv.Bytes*5 <= lr.OrigStored)
	}
	if t := lr.TUI; t != nil {
		s, l := t.Rows[0], t.Rows[1]
		p("### TUI\n\n")
		p("`ui.Run` over the chunked copy (`-A --driver chunked`), headless on a 160x50 virtual terminal, in a process of its\n")
		p("own, in turns with `chunkview ls -A`: the time from the process's start to the first frame that shows the release\n")
		p("list (its first row `%s`), then key presses on `%s` (about %s of gzip per revision), as in the TUI section above.\n\n", t.FirstRow, t.Target, mb(float64(t.TargetGZ)))
		p("| | time (median) | fastest–slowest | API requests | bytes received | peak memory |\n|---|---|---|---|---|---|\n")
		p("| TUI: first release list drawn | %s | %s | %d (whole session) | %s | %s |\n", ms(t.List), spread(t.Lists), s.Requests, mb(float64(s.Bytes)), mib(s.MaxRSS))
		p("| TUI: `enter`, history drawn | %s | %s | | | |\n", ms(t.History), spread(t.Hists))
		p("| TUI: `d`, diff of the latest two revisions drawn | %s | %s | | | |\n", ms(t.Diff), spread(t.Diffs))
		p("| TUI: `c`, chunk layout drawn | %s | %s | | | |\n", ms(t.Chunks), spread(t.Layouts))
		p("| TUI: `c`, its sizes drawn | %s | %s | | | |\n", ms(t.Sizes), spread(t.SizesAll))
		p("| `chunkview ls -A --driver chunked -o json`, whole process | %s | %s–%s | %d | %s | %s |\n\n", ms(l.Wall), ms(l.WallMin), ms(l.WallMax), l.Requests, mb(float64(l.Bytes)), mib(l.MaxRSS))
		var each []string
		for i := range min(len(t.Lists), len(l.Walls)) {
			each = append(each, ratio(float64(t.Lists[i]), float64(l.Walls[i])))
		}
		target("TUI's first list drawn within 2x of `ls -A`",
			fmt.Sprintf("%s vs %s: %s (run by run, in turns: %s)", ms(t.List), ms(l.Wall), ratio(float64(t.List), float64(l.Wall)), strings.Join(each, ", ")), t.List <= 2*l.Wall)
	}
	if len(targets) > 0 {
		p("### Targets at %d revisions\n\nThe same rows close the Targets table above.\n\n| target | measured | |\n|---|---|---|\n", idx)
		for _, t := range targets {
			p("| %s | %s | %s |\n", t[0], t[1], t[2])
		}
		p("\n")
	}
	p("Large fleet run time: %s.\n", ms(r.Finished.Sub(r.Started)))
	return b.String()
}
