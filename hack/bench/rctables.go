package main

import (
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/storage"
)

type printer func(format string, a ...any)

func (rep *rcReport) setup(p printer, n int) {
	var small, large [2]int64
	last := rep.Phases[len(rep.Phases)-1]
	small, large = last.Stored["small"], last.Stored["large"]
	chunks := map[int]int{}
	for _, e := range rep.Exts {
		chunks[e.chunks]++
	}
	p("**The fleet.** %d ClusterExtensions whose release records live in `%s` (owner `%s`), as OLMv1 keeps them: "+
		"%d small ones of 1 chunk (30 to 900 kB of gzip a revision) and %d of several chunks (%d of 3, %d of 4, %d of 5, %d of 6), "+
		"at OLMv1's chunk size (%d bytes), MaxReadChunks and MaxWriteChunks %d; measured at 5 revisions each, then at 10 (OLMv1's MaxHistory). "+
		"The records are written by chunkview's driver, through helm-operator-plugins' OwnerRefSecretClient, so that every index Secret "+
		"carries its ClusterExtension's controller reference.\n\n",
		n, olmSystemNamespace, olmOwner, rep.Shape.Small, rep.Shape.Large, chunks[3], chunks[4], chunks[5], chunks[6], olmChunkSize, olmMaxChunks)
	p("**The content** is generated (hack/bench/bundle.go) to compress like real bundles: CRDs whose OpenAPI schemas carry prose "+
		"descriptions and reuse embedded types verbatim, and the operator's ServiceAccount, ClusterRole and binding, Deployment and Service. "+
		"As OLMv1 does, the chart has one JSON template per object, and the release's manifest is the post-rendered YAML with the "+
		"ClusterExtension's controller reference: each object is stored twice, base64'd in the templates and as YAML. The objects gzip "+
		"5.5–6.7:1 as JSON, 6.7–7.4:1 as YAML and 3.9–4.5:1 base64'd (Gateway API's standard CRDs and Prometheus's CRD: 5.5–6.4, 6.8–6.9 and 4.2). "+
		"At 10 revisions the fleet stores %s of gzip (small %s, large %s) that decode to %s of release JSON: **%.1f:1** (small %.1f:1, large %.1f:1).\n\n",
		mb(float64(small[0]+large[0])), mb(float64(small[0])), mb(float64(large[0])), mb(float64(small[1]+large[1])),
		float64(small[1]+large[1])/float64(small[0]+large[0]), float64(small[1])/float64(small[0]), float64(large[1])/float64(large[0]))
	p("**The reconcile** is OLMv1's at steady state, through helm-operator-plugins v0.9.1's ActionClientGetter " +
		"(NewActionConfigGetter with a StorageDriverMapper, NewActionClientGetter without failure rollbacks): `History`, `Get`, then a " +
		"server dry-run `Upgrade` to the deployed bundle's chart with MaxHistory 10, each through an action client of its own, so each " +
		"builds a fresh driver. The driver's Secret client is helm-operator-plugins' OwnerRefSecretClient over a delegating client " +
		"(internal/adoption) whose Get and List go to a controller-runtime client.Reader and whose writes go to the typed client. " +
		"Every reconcile checks what it read: the whole history, the deployed revision, and a dry run of the next revision whose manifest is the deployed one's.\n\n")
	p("**The read paths**, each in a child process of its own (its heap, collector and CPU time its own, as an operator's):\n\n")
	for _, rp := range readPaths {
		p("- %s\n", rp.label)
	}
	p("\nThe cached read path is `storage.NewReleaseCache(clientset.CoreV1(), storage.ReleaseCacheOptions{...})`, started beside the "+
		"operator, its view of the system namespace in `ChunkedSecretsConfig.Cache`; the delegating client reads live for what it does not serve. "+
		"(d) keeps its default bounds (%s of slices, %s of decoded releases); (d2) has room for every slice of the fleet; (d3) for every slice "+
		"and every decoded release. The cached paths warm up on the whole fleet (their first pass fills them), the others on two extensions.\n\n",
		mib(storage.DefaultCacheChunkBytes), mib(storage.DefaultCacheReleaseBytes))
	p("Live reads go through a controller-runtime client (the manager's API reader); the cache is a started controller-runtime "+
		"`cache.Cache` of every Secret of `%s`, as operator-controller's manager already keeps one. **How it was measured:** each path "+
		"reconciles a small and a large extension to warm up; then %d passes over the fleet, the paths taking turns extension by "+
		"extension (their order rotating), so that the shared machine's load falls on all alike. A figure is the median of the passes. "+
		"Requests and bytes received (response bodies after the transport's gzip decoding) are counted on the child's connection, a watch's "+
		"bytes (the cached read path's events and bookmarks) apart; client "+
		"CPU is the child's user and system time around each reconcile, and \"in the driver\" its part inside the driver's calls (decoding "+
		"included; the collections of the garbage it leaves fall partly outside); API server and etcd CPU are theirs from /proc around "+
		"each reconcile; allocated is the child's Go allocations; live heap is the child's heap after a collection at steady state, less "+
		"what it held before building its read path (its code and the charts it upgrades to).\n\n", olmSystemNamespace, rep.Runs)
}

func (rep *rcReport) phaseTables(p printer, ph *rcPhase, n int) {
	p("### %d revisions per extension\n\n", ph.Revisions)
	p("One pass: a steady-state reconcile of each of the %d extensions.\n\n", n)
	p("| read path | Secret requests | all requests | Secret bytes | all bytes | client CPU | in the driver | API server CPU | etcd CPU | allocated | live heap |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range ph.Paths {
		if r.Err != "" && len(r.Runs) == 0 || passes(r) == 0 {
			p("| %s | fails: `%s` | | | | | | | | | %s |\n", r.Label, r.Err, mib(r.Heap))
			continue
		}
		s := r.pass()
		p("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Label, s.Secrets, s.All,
			mb(float64(s.SecretBytes)), mb(float64(s.AllBytes)), cpu(s.CPUNs), cpu(s.DriverCPUNs),
			ms(s.srv.apiserver), ms(s.srv.etcd), mb(float64(s.Alloc)), mib(r.Heap))
	}
	p("\nAgainst (a), same run:\n\n")
	p("| read path | Secret requests | Secret bytes | client CPU | in the driver | API server CPU | etcd CPU | allocated |\n|---|---|---|---|---|---|---|---|\n")
	a := ph.Paths[0]
	for _, r := range ph.Paths[1:] {
		if passes(r) == 0 || passes(a) == 0 {
			continue
		}
		s, o := r.pass(), a.pass()
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Label, ratio(float64(s.Secrets), float64(o.Secrets)),
			ratio(float64(s.SecretBytes), float64(o.SecretBytes)), ratio(float64(s.CPUNs), float64(o.CPUNs)),
			ratio(float64(s.DriverCPUNs), float64(o.DriverCPUNs)), ratio(float64(s.srv.apiserver), float64(o.srv.apiserver)),
			ratio(float64(s.srv.etcd), float64(o.srv.etcd)), ratio(float64(s.Alloc), float64(o.Alloc)))
	}
	cacheStats(p, ph)
	rep.sixChunks(p, ph)
	for _, r := range ph.Paths {
		if r.Startup.All > 0 {
			p("\n%s started its cache with %d requests that received %s: the list of every Secret of the namespace, and the watch.\n", tag(r), r.Startup.All, mb(float64(r.Startup.AllBytes)))
		}
		if r.Changed {
			p("\n**%s's dry runs found something to change: not a steady state.**\n", tag(r))
		}
	}
	p("\n")
}

// tag is the letter a read path goes by, "(a)".
func tag(r *rcPathResult) string {
	t, _, _ := strings.Cut(r.Label, " ")
	return t
}

// passes is how many passes r completed over the whole fleet.
func passes(r *rcPathResult) int {
	if r.Err != "" {
		return 0
	}
	return len(r.Runs)
}

// sixChunks tabulates one reconcile of the 6-chunk extensions, the release the
// issue measured.
func (rep *rcReport) sixChunks(p printer, ph *rcPhase) {
	k := 0
	for _, e := range rep.Exts {
		if e.chunks == 6 {
			k++
		}
	}
	if k == 0 {
		return
	}
	p("\nOne reconcile of a 6-chunk extension (the mean of the fleet's %d):\n\n", k)
	p("| read path | Secret requests | Secret bytes | client CPU | in the driver | allocated |\n|---|---|---|---|---|---|\n")
	for _, r := range ph.Paths {
		if passes(r) == 0 {
			continue
		}
		m := rep.meanOfChunks(r, 6)
		p("| %s | %d | %s | %s | %s | %s |\n", r.Label, m.Secrets, mb(float64(m.SecretBytes)), cpu(m.CPUNs), cpu(m.DriverCPUNs), mb(float64(m.Alloc)))
	}
}

func (rep *rcReport) extrapolation(p printer, n int) {
	p("### At 400 and 4,000 extensions\n\n")
	p("The same mix scaled (a pass costs in proportion to the extensions). A controller-runtime reconciler is resynced every 10 hours " +
		"by default (SyncPeriod); OLMv1 also reconciles every extension when a ClusterCatalog it resolves from is updated, so a pass per " +
		"catalog update is the other period assumed here: one an hour. Live reads cost this on top of each reconcile an event triggers.\n\n")
	p("| read path | revisions | Secret requests a pass (40 / 400 / 4,000) | Secret bytes a pass at 4,000 | requests/s at 4,000, a pass every 10 h | requests/s at 4,000, a pass an hour | bytes/s at 4,000, a pass an hour |\n")
	p("|---|---|---|---|---|---|---|\n")
	for _, ph := range rep.Phases {
		for _, r := range ph.Paths {
			if passes(r) == 0 {
				continue
			}
			s := r.pass()
			per := func(k int) float64 { return float64(s.Secrets) * float64(k) / float64(n) }
			bytes4k := float64(s.SecretBytes) * 4000 / float64(n)
			p("| %s | %d | %.0f / %.0f / %.0f | %s | %.2f | %.1f | %s |\n", r.Label, ph.Revisions, per(40), per(400), per(4000),
				mb(bytes4k), per(4000)/36000, per(4000)/3600, mb(bytes4k/3600))
		}
	}
	p("\n")
}

func (rep *rcReport) decodedSection(p printer) {
	d := rep.Decoded
	if d == nil {
		return
	}
	p("### What a decoded release costs in heap\n\n")
	p("chunkview's driver reads the %d revisions of `%s` (%d chunks) and the process keeps them: %s of gzip stored, %s of JSON, "+
		"**%s of live heap: %.2fx the stored bytes**, %.2fx the JSON (the heap after a collection with the releases held, less before). "+
		"A cache of decoded releases holds about this much per revision it keeps; the JSON size is in each index's summary.\n\n",
		d.Revisions, d.Release, d.Chunks, mb(float64(d.StoredBytes)), mb(float64(d.JSONBytes)), mb(float64(d.HeapBytes)),
		d.heapPerStored(), float64(d.HeapBytes)/float64(d.JSONBytes))
}

// path returns the phase's result of the read path named name, or nil.
func (ph *rcPhase) path(name string) *rcPathResult {
	for _, r := range ph.Paths {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func (rep *rcReport) targets(p printer) {
	cached := cachedPaths(rep.Phases[0])
	if len(cached) == 0 {
		return
	}
	p("### Targets of the cached read path\n\n")
	p("Against (a), helm-operator-plugins' driver read live, and (c), a cache of every Secret of the namespace (what operator-controller already keeps), same run.\n\n")
	p("| revisions | target | bound |")
	for _, n := range cached {
		p(" %s |", tag(rep.Phases[0].path(n)))
	}
	p("\n|---|---|---|%s\n", strings.Repeat("---|", len(cached)))
	for _, ph := range rep.Phases {
		a, c := ph.path("original-live"), ph.path("chunkview-cache")
		if a == nil || passes(a) == 0 {
			continue
		}
		ap := a.pass()
		row := func(target, bound string, cell func(r *rcPathResult, s pass) string) {
			p("| %d | %s | %s |", ph.Revisions, target, bound)
			for _, n := range cached {
				r := ph.path(n)
				if passes(r) == 0 {
					p(" fails |")
					continue
				}
				p(" %s |", cell(r, r.pass()))
			}
			p("\n")
		}
		row("Secret requests a pass at steady state", "0", func(_ *rcPathResult, s pass) string { return fmt.Sprintf("%d, %s", s.Secrets, yes(s.Secrets == 0)) })
		row("Secret bytes a pass at steady state", "0", func(_ *rcPathResult, s pass) string {
			return fmt.Sprintf("%s, %s", mb(float64(s.SecretBytes)), yes(s.SecretBytes == 0))
		})
		row("client CPU a pass", "≤ 0.2x (a) = "+cpu(ap.CPUNs/5), func(_ *rcPathResult, s pass) string {
			return fmt.Sprintf("%s (%s), %s", cpu(s.CPUNs), ratio(float64(s.CPUNs), float64(ap.CPUNs)), yes(s.CPUNs*5 <= ap.CPUNs))
		})
		row("client CPU in the driver a pass (the storage's share)", "≤ 0.2x (a)'s = "+cpu(ap.DriverCPUNs/5), func(_ *rcPathResult, s pass) string {
			return fmt.Sprintf("%s (%s), %s", cpu(s.DriverCPUNs), ratio(float64(s.DriverCPUNs), float64(ap.DriverCPUNs)), yes(s.DriverCPUNs*5 <= ap.DriverCPUNs))
		})
		if c != nil && c.Heap > 0 {
			row("live heap", "≤ 0.5x (c) = "+mib(c.Heap/2), func(r *rcPathResult, _ pass) string {
				return fmt.Sprintf("%s (%s), %s", mib(r.Heap), ratio(float64(r.Heap), float64(c.Heap)), yes(r.Heap*2 <= c.Heap))
			})
		}
	}
	p("\n")
}

// cachedPaths are the names of the phase's cached read paths.
func cachedPaths(ph *rcPhase) []string {
	var out []string
	for _, r := range ph.Paths {
		if strings.HasPrefix(r.Name, "chunkview-releasecache") {
			out = append(out, r.Name)
		}
	}
	return out
}

// cacheStats tabulates what the cached read paths hold and do at the end of a
// phase.
func cacheStats(p printer, ph *rcPhase) {
	first := true
	for _, r := range ph.Paths {
		st := r.Cache
		if st == nil || passes(r) == 0 {
			continue
		}
		if first {
			p("\nThe cached read paths at the end of the passes:\n\n")
			p("| read path | records decoded a pass | watch bytes a pass | index Secrets watched | slices held | decoded releases held | evictions (slices / releases) | reads sent to the API server |\n|---|---|---|---|---|---|---|---|\n")
			first = false
		}
		var fb int64
		var reasons []string
		for k, v := range st.Fallbacks {
			fb += v
			reasons = append(reasons, fmt.Sprintf("%s: %d", k, v))
		}
		p("| %s | %d | %s | %d | %d, %s | %d, %s | %d / %d | %d %s |\n", r.Label, r.pass().Decodes, mb(float64(r.pass().WatchBytes)), st.Indexes, st.ChunkEntries, mib(st.ChunkBytes),
			st.ReleaseEntries, mib(st.ReleaseBytes), st.ChunkEvictions, st.ReleaseEvictions, fb, strings.Join(reasons, "; "))
	}
}
