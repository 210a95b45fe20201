package ops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"

	helmkube "helm.sh/helm/v3/pkg/kube"

	"github.com/chunkview/chunkview/kube"
)

// checkResources asks the API server whether the user may do what Helm must do to
// the release's own resources when op moves it from manifest from to manifest to:
// read every resource of to, create those that from lacks, patch those that differ
// between the two; with to empty (uninstall), delete every resource of from that
// Helm does not keep (helm.sh/resource-policy: keep). A rollback's deletions are
// not required: Helm logs a refused one and goes on. Hooks are not checked. It
// returns an error wrapping kube.ErrForbidden that names what is
// missing, before anything is written: Helm would otherwise store a new revision,
// fail on the first refused resource and leave that revision failed. It returns nil
// when everything is allowed, and when it cannot tell (a manifest that does not map
// to known resources, a review that fails): the server then decides.
func (r *Runner) checkResources(ctx context.Context, op string, h helm, from, to string) error {
	build := func(manifest string) map[string]*resource.Info {
		out := map[string]*resource.Info{}
		if strings.TrimSpace(manifest) == "" {
			return out
		}
		list, err := h.build(manifest)
		if err != nil {
			return nil
		}
		for _, info := range list {
			if info.Mapping == nil {
				continue
			}
			out[infoID(info)] = info
		}
		return out
	}
	before, after := build(from), build(to)
	if before == nil || after == nil {
		return nil
	}
	need := map[Access]bool{}
	add := func(info *resource.Info, verbs ...string) {
		ns := info.Namespace
		if info.Mapping.Scope.Name() != meta.RESTScopeNameNamespace {
			ns = ""
		}
		for _, v := range verbs {
			need[Access{Verb: v, Resource: info.Mapping.Resource.GroupResource(), Namespace: ns}] = true
		}
	}
	for id, info := range after {
		switch old, ok := before[id]; {
		case !ok:
			add(info, "get", "create")
		case !equality.Semantic.DeepEqual(old.Object, info.Object):
			add(info, "get", "patch")
		default:
			add(info, "get")
		}
	}
	if strings.TrimSpace(to) == "" {
		for _, info := range before {
			if !kept(info) {
				add(info, "delete")
			}
		}
	}
	verdicts, err := r.Review(ctx, slices.Collect(maps.Keys(need)))
	if err != nil {
		return nil
	}
	var denied []Access
	for a, v := range verdicts {
		if !v.Allowed {
			denied = append(denied, a)
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return deniedError(op, denied)
}

// kept reports whether Helm leaves the resource in place on uninstall.
func kept(info *resource.Info) bool {
	m, err := meta.Accessor(info.Object)
	return err == nil && m.GetAnnotations()[helmkube.ResourcePolicyAnno] == helmkube.KeepPolicy
}

func infoID(info *resource.Info) string {
	return info.Mapping.Resource.GroupResource().String() + "/" + info.Namespace + "/" + info.Name
}

// deniedError says which verbs op lacks on which resources, grouped by resource
// and namespace, and how to check and ask for them.
func deniedError(op string, denied []Access) error {
	type where struct {
		gr schema.GroupResource
		ns string
	}
	verbs := map[where][]string{}
	for _, a := range denied {
		w := where{a.Resource, a.Namespace}
		verbs[w] = append(verbs[w], a.Verb)
	}
	order := map[string]int{"get": 0, "create": 1, "patch": 2, "delete": 3}
	var ws []where
	for w, vs := range verbs {
		sort.Slice(vs, func(i, j int) bool { return order[vs[i]] < order[vs[j]] })
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].ns != ws[j].ns {
			return ws[i].ns < ws[j].ns
		}
		return ws[i].gr.String() < ws[j].gr.String()
	})
	var parts []string
	for _, w := range ws {
		place := "at the cluster scope"
		if w.ns != "" {
			place = "in namespace " + w.ns
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", strings.Join(verbs[w], ", "), w.gr, place))
	}
	first := ws[0]
	check := fmt.Sprintf("kubectl auth can-i %s %s", verbs[first][0], first.gr)
	if first.ns != "" {
		check += " -n " + first.ns
	}
	role := "a Role"
	for _, w := range ws {
		if w.ns == "" {
			role = "a Role (a ClusterRole for what is at the cluster scope)"
		}
	}
	return fmt.Errorf("%w: %s needs permission to %s, which your credentials lack; nothing was changed. Check with `%s` and ask for %s granting them",
		kube.ErrForbidden, op, strings.Join(parts, "; "), check, role)
}
