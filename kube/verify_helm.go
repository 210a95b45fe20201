package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/chunkview/chunkview/storage"
)

// verifyHelm checks the records of one of Helm's stores in view (of release name
// when set): that each record's labels agree with its name, and, with decode, that
// its payload decodes. Without decode it reads metadata only. A Helm record is one
// object, so there is nothing else to be missing.
func (ch *Checker) verifyHelm(ctx context.Context, s *helmStore, nss []string, name string, decode bool) ([]NamespaceReport, error) {
	var extra labels.Set
	if name != "" {
		extra = labels.Set{storage.LabelName: name}
	}
	sel := helmSelector(extra)
	byNS := map[string]*storage.Report{}
	report := func(ns string) *storage.Report {
		if byNS[ns] == nil {
			byNS[ns] = &storage.Report{Problems: []storage.Problem{}, Leftovers: []storage.Leftover{}}
		}
		return byNS[ns]
	}
	check := func(m metav1.Object, data []byte, decoded bool) {
		rep := report(m.GetNamespace())
		rep.Indexes++
		key := m.GetName()
		n, rev, ok := storage.ParseKey(key)
		lbl := m.GetLabels()
		switch {
		case !ok:
			rep.Problems = append(rep.Problems, storage.Problem{Kind: storage.ProblemBadIndex, Key: key, Secret: key,
				Detail: "its name is not sh.helm.release.v1.NAME.vN"})
		case lbl[storage.LabelName] != n || lbl[storage.LabelVersion] != strconv.Itoa(rev):
			rep.Problems = append(rep.Problems, storage.Problem{Kind: storage.ProblemLabelMismatch, Key: key, Secret: key,
				Detail: fmt.Sprintf("labels name=%q version=%q do not match its name", lbl[storage.LabelName], lbl[storage.LabelVersion])})
		}
		if !decoded {
			return
		}
		r, err := storage.DecodeHelmRecord(data, 0)
		switch {
		case err != nil:
			rep.Problems = append(rep.Problems, storage.Problem{Kind: storage.ProblemDecode, Key: key, Secret: key, Detail: err.Error()})
		case r.Release.Name != n || r.Release.Version != rev:
			rep.Problems = append(rep.Problems, storage.Problem{Kind: storage.ProblemLabelMismatch, Key: key, Secret: key,
				Detail: fmt.Sprintf("its payload is revision %d of %q", r.Release.Version, r.Release.Name)})
		}
	}
	for _, ns := range nss {
		if decode {
			recs, err := s.listRecords(ctx, ns, sel)
			if err != nil {
				return nil, err
			}
			for i := range recs {
				check(&recs[i].meta, recs[i].data, true)
			}
			continue
		}
		metas, err := s.listMeta(ctx, ns, sel)
		if err != nil {
			return nil, err
		}
		for i := range metas {
			check(&metas[i], nil, false)
		}
	}
	out := make([]NamespaceReport, 0, len(byNS))
	for ns, rep := range byNS {
		out = append(out, NamespaceReport{Namespace: ns, Driver: s.kind, Report: rep})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out, nil
}

// verifyStores runs verify over every store the client reads: fn for the chunked
// store, verifyHelm for Helm's, in the namespaces in view (nss, or with nil the
// store's own: the one looked at, or all, falling back to those readable).
func (ch *Checker) verifyStores(ctx context.Context, name string, decode bool, nss []string, chunked func() ([]NamespaceReport, error)) ([]NamespaceReport, error) {
	var out []NamespaceReport
	var partials []error
	skipped := map[string]error{}
	for _, d := range ch.c.cfg.drivers() {
		if d == DriverChunked {
			reps, err := chunked()
			if errors.Is(err, ErrPartial) {
				partials, err = append(partials, err), nil
			}
			if err != nil {
				return out, err
			}
			out = append(out, reps...)
			continue
		}
		s := ch.c.store(d).(*helmStore)
		where := nss
		if where == nil {
			where = []string{s.listNamespace()}
		}
		reps, err := ch.verifyHelm(ctx, s, where, name, decode)
		if err != nil && errors.Is(err, ErrForbidden) && len(where) == 1 && where[0] == "" {
			var read []NamespaceReport
			err = ch.c.cfg.eachReadable(err, func(ns string) error {
				r, err := ch.verifyHelm(ctx, s, []string{ns}, name, decode)
				read = append(read, r...)
				return err
			})
			reps = read
			if errors.Is(err, ErrPartial) {
				partials, err = append(partials, err), nil
			}
		}
		if err != nil && errors.Is(err, ErrForbidden) && len(ch.c.cfg.drivers()) > 1 {
			// A store the user may not read is skipped, and said so.
			skipped[d] = err
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, reps...)
	}
	if len(partials) > 1 {
		partials = partials[:1]
	}
	if len(skipped) > 0 {
		partials = append(partials, &StoreSkipError{Skipped: skipped})
	}
	return out, errors.Join(partials...)
}
