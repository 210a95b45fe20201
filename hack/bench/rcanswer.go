package main

// answer writes the short answer to the seed's question, from the figures of
// the last phase (the most revisions).
func (rep *rcReport) answer(p printer, n int) {
	last := rep.Phases[len(rep.Phases)-1]
	a, b, c := last.path("original-live"), last.path("chunkview-live"), last.path("chunkview-cache")
	p("### The answer\n\n")
	p("The chunked format's review asked what reading release state from chunked Secrets costs the API server \"on every reconcile\". ")
	if a == nil || passes(a) == 0 {
		p("helm-operator-plugins' driver did not complete a pass in this run.\n\n")
		return
	}
	s := a.pass()
	six := rep.meanOfChunks(a, 6)
	p("Read live, as OLMv1 reads today, one steady-state reconcile of each of the %d extensions at %d revisions sends **%d requests "+
		"on Secrets and receives %s** with helm-operator-plugins' driver (API server %s and etcd %s of CPU), for the same records "+
		"decoded three times per reconcile (History, Get, and the dry run's Last each decode every revision). ",
		n, last.Revisions, s.Secrets, mb(float64(s.SecretBytes)), ms(s.srv.apiserver), ms(s.srv.etcd))
	if six.Secrets > 0 {
		p("A 6-chunk extension alone costs %d requests and %s a reconcile. ", six.Secrets, mb(float64(six.SecretBytes)))
	}
	p("At 4,000 extensions of the same mix a pass costs %.0f requests and %s.", float64(s.Secrets)*4000/float64(n), mb(float64(s.SecretBytes)*4000/float64(n)))
	if b != nil && passes(b) > 0 {
		t := b.pass()
		p(" chunkview's driver read live sends the same requests for the same bytes, with %s the client CPU (%s inside the driver), "+
			"%s the API server's and %s etcd's (it reads chunks at resourceVersion 0, from the API server's watch cache).",
			ratio(float64(t.CPUNs), float64(s.CPUNs)), ratio(float64(t.DriverCPUNs), float64(s.DriverCPUNs)),
			ratio(float64(t.srv.apiserver), float64(s.srv.apiserver)), ratio(float64(t.srv.etcd), float64(s.srv.etcd)))
	}
	switch {
	case c == nil:
	case passes(c) > 0:
		t := c.pass()
		p(" Over controller-runtime's cache the reconcile sends %d requests on Secrets, but the cache of every Secret of the namespace holds %s of heap.",
			t.Secrets, mib(c.Heap))
	default:
		p(" Over controller-runtime's cache chunkview's driver fails today (`%s`): its lists page, and the cache refuses a continue "+
			"token (issue 28, item 1). That cache, which operator-controller already keeps, holds %s of heap for this fleet.", c.Err, mib(c.Heap))
	}
	for _, name := range cachedPaths(last) {
		r := last.path(name)
		if passes(r) == 0 {
			p(" %s fails: `%s`.", r.Label, r.Err)
			continue
		}
		t := r.pass()
		p(" %s: %d requests and %s on Secrets a pass, %s the client CPU of (a), %s of heap", r.Label, t.Secrets, mb(float64(t.SecretBytes)),
			ratio(float64(t.CPUNs), float64(s.CPUNs)), mib(r.Heap))
		if c != nil && c.Heap > 0 {
			p(" (%s (c)'s)", ratio(float64(r.Heap), float64(c.Heap)))
		}
		p(".")
	}
	p(" Whatever the driver, each dry-run Upgrade also fetches the server's OpenAPI documents to validate the manifest (%.0f requests "+
		"and %s a reconcile beyond Secrets here): helm-operator-plugins builds a Helm kube client per action client, and its OpenAPI "+
		"cache goes with it.\n\n", float64(s.All-s.Secrets)/float64(n), mb(float64(s.AllBytes-s.SecretBytes)/float64(n)))
}

// meanOfChunks is r's mean reconcile of the extensions of the given chunks.
func (rep *rcReport) meanOfChunks(r *rcPathResult, chunks int) rcCost {
	var sum rcCost
	k := 0
	for i, e := range rep.Exts {
		if e.chunks == chunks && len(r.PerExt[i]) > 0 {
			sum.add(r.ext(i))
			k++
		}
	}
	if k == 0 {
		return rcCost{}
	}
	return rcCost{Secrets: sum.Secrets / k, SecretBytes: sum.SecretBytes / int64(k), CPUNs: sum.CPUNs / int64(k),
		DriverCPUNs: sum.DriverCPUNs / int64(k), Alloc: sum.Alloc / int64(k), All: sum.All / k, AllBytes: sum.AllBytes / int64(k)}
}
