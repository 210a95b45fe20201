package ops

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/chunkview/chunkview/kube"
)

// Review answers, for each of need, whether the user of the runner's connection
// may do it: one SelfSubjectRulesReview per namespace (kept for rulesTTL, so the
// apply's review reuses the plan's), which grants what its resource rules
// allow; every access the rules do not grant (denied, or granted by an
// authorizer that cannot list its rules: the review is then incomplete) and
// every cluster-scoped one is asked of the authorizer with a
// SelfSubjectAccessReview, which gives the reason of a denial. An access is
// never refused on the rules alone. Reviews that fail are missing from the
// answers, and their errors are joined in the error returned.
func (r *Runner) Review(ctx context.Context, need []Access) (map[Access]Verdict, error) {
	out := map[Access]Verdict{}
	var ask []Access
	for _, a := range need {
		if a.Namespace == "" {
			ask = append(ask, a)
			continue
		}
		st, err := r.rules.rules(ctx, a.Namespace)
		if err != nil || !rulesGrant(st.ResourceRules, a) {
			ask = append(ask, a)
			continue
		}
		out[a] = Verdict{Allowed: true}
	}
	if len(ask) == 0 {
		return out, nil
	}
	asked, err := Review(ctx, r.c.Clientset(), ask)
	for a, v := range asked {
		out[a] = v
	}
	return out, err
}

// Can asks the API server what the user of connection c may do with the records
// in the storage namespace of namespace ns (the namespace looked at, as for
// History): one SelfSubjectRulesReview of that namespace, then a
// SelfSubjectAccessReview of each verb its rules do not grant, for the
// authorizer's reason (see Runner.Review). It sends POST requests, so it is not
// available in read-only mode, where nothing may be changed anyway.
//
// It checks the store the client reads when it reads one (WithDrivers,
// --driver): Helm's ConfigMaps driver keeps its records in configmaps. Reading
// several, it checks the chunked store's Secrets.
func Can(ctx context.Context, c *kube.Client, ns string) (*kube.Permissions, error) {
	return NewRunner(c).Can(ctx, ns)
}

// Can is the package's Can through r's permission answers (see Runner.Review).
func (r *Runner) Can(ctx context.Context, ns string) (*kube.Permissions, error) {
	c := r.c
	d := c.Drivers()[0]
	res := kube.StoreResource(d)
	sns := c.Config().StorageNamespaceFor(d, ns)
	p := &kube.Permissions{Namespace: sns, Driver: d, Resource: res, Allowed: map[string]bool{}, Reasons: map[string]string{}}
	if c.ReadOnly() {
		for _, v := range kube.SecretVerbs {
			p.Allowed[v] = v == "get" || v == "list"
			if !p.Allowed[v] {
				p.Reasons[v] = "started with --read-only"
			}
		}
		return p, nil
	}
	need := make([]Access, 0, len(kube.SecretVerbs))
	for _, verb := range kube.SecretVerbs {
		need = append(need, Access{Verb: verb, Resource: schema.GroupResource{Resource: res}, Namespace: sns})
	}
	verdicts, err := r.Review(ctx, need)
	if err != nil {
		return nil, fmt.Errorf("check permissions in namespace %s: %w", sns, err)
	}
	for a, v := range verdicts {
		p.Allowed[a.Verb] = v.Allowed
		if !v.Allowed && v.Reason != "" {
			p.Reasons[a.Verb] = v.Reason
		}
	}
	return p, nil
}

// CheckAllowed refuses op up front, with the reason Allows gives, when the user of
// connection c may not run it on the records of namespace ns. When the check
// itself cannot be made (the server is unreachable, the review API refused), it
// returns nil: the operation's own requests will meet the same answer, with their
// own error.
func CheckAllowed(ctx context.Context, c *kube.Client, ns, op string) error {
	return NewRunner(c).CheckAllowed(ctx, ns, op)
}

// CheckAllowed is the package's CheckAllowed through r's permission answers: the
// rules it reads for the records' namespace answer the apply's review of the
// release's resources too, when they live there (see Runner.Review).
func (r *Runner) CheckAllowed(ctx context.Context, ns, op string) error {
	c := r.c
	if err := checkWritable(c, op); err != nil {
		return err
	}
	if c.Config().StorageNamespaceFor(c.Drivers()[0], ns) == "" {
		return nil
	}
	p, err := r.Can(ctx, ns)
	if err != nil {
		return nil
	}
	return p.Allows(op)
}
