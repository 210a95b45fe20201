package kube

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The operations whose permissions kube/ops's Can checks, in the order a user meets them.
const (
	OpRollback       = "rollback"
	OpUninstall      = "uninstall"
	OpDeleteRevision = "delete-revision"
	OpGC             = "gc"
	OpFixStuck       = "fix-stuck"
	OpPrune          = "prune"
	OpFixAPIs        = "fix-apis"
)

// Operations are the operations that change release records.
var Operations = []string{OpRollback, OpUninstall, OpDeleteRevision, OpGC, OpFixStuck, OpPrune, OpFixAPIs}

// SecretVerbs are the verbs on a store's records that kube/ops's Can asks about.
var SecretVerbs = []string{"get", "list", "create", "update", "patch", "delete", "deletecollection"}

// opVerbs are the verbs on Secrets in the storage namespace each operation needs:
// reading the history (get, list), writing a revision (chunks created and
// adopted, index created or updated), deleting a record (index, then its chunks as
// a collection). What Helm needs on the release's own resources is not checked
// here: the server says so, and the error carries Helm's reason.
var opVerbs = map[string][]string{
	OpRollback:       {"get", "list", "create", "update", "patch", "delete"},
	OpUninstall:      {"get", "list", "create", "update", "delete", "deletecollection"},
	OpDeleteRevision: {"get", "list", "delete", "deletecollection"},
	OpGC:             {"get", "list", "delete"},
	OpFixStuck:       {"get", "list", "create", "update", "patch", "delete", "deletecollection"},
	OpPrune:          {"get", "list", "delete", "deletecollection"},
	OpFixAPIs:        {"get", "list", "create", "update", "patch", "delete"},
}

// helmOpVerbs are the verbs Helm's own drivers need on their Secrets or
// ConfigMaps: they read, create, update and delete whole records, one at a time.
var helmOpVerbs = map[string][]string{
	OpRollback:       {"get", "list", "create", "update"},
	OpUninstall:      {"get", "list", "update", "delete"},
	OpDeleteRevision: {"get", "list", "delete"},
	OpGC:             {"get", "list", "delete"},
	OpFixStuck:       {"get", "list", "update", "delete"},
	OpPrune:          {"get", "list", "delete"},
	OpFixAPIs:        {"get", "list", "create", "update"},
}

// Permissions is what the connection's user may do with the records of one store
// in one storage namespace, as the API server's authorizer answers
// SelfSubjectAccessReviews.
type Permissions struct {
	// Namespace is the storage namespace checked.
	Namespace string `json:"namespace"`
	// Driver is the store checked, Resource the resource its records are:
	// secrets, or configmaps for Helm's ConfigMaps driver.
	Driver   string `json:"driver"`
	Resource string `json:"resource"`
	// Allowed says, for each verb on secrets, whether it is allowed.
	Allowed map[string]bool `json:"allowed"`
	// Reasons holds the authorizer's reason for a denied verb, when it gave one.
	Reasons map[string]string `json:"reasons,omitempty"`
}

// Missing returns the verbs on secrets op needs that are not allowed, in a fixed
// order; nil when op may run.
func (p *Permissions) Missing(op string) []string {
	var out []string
	verbs := opVerbs[op]
	if p.Driver == DriverSecret || p.Driver == DriverConfigMap {
		verbs = helmOpVerbs[op]
	}
	for _, v := range verbs {
		if !p.Allowed[v] {
			out = append(out, v)
		}
	}
	return out
}

// Allows returns nil when the user may run op, or an error wrapping ErrForbidden
// that names the operation, the missing verbs, the resource and the namespace, and
// how to check and ask for them.
func (p *Permissions) Allows(op string) error {
	missing := p.Missing(op)
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrForbidden, p.reason(op, missing))
}

func (p *Permissions) reason(op string, missing []string) string {
	res := p.Resource
	if res == "" {
		res = "secrets"
	}
	return fmt.Sprintf("%s needs permission to %s %s in namespace %s, which your credentials lack; nothing was changed. Check with `kubectl auth can-i %s %s -n %s` and ask for a Role granting %s on %s there",
		op, strings.Join(missing, ", "), res, p.Namespace, missing[0], res, p.Namespace, quoteAll(missing), res)
}

// Disabled returns, for each operation the user may not run, why: the text a UI
// shows next to the disabled action. Operations that may run are absent.
func (p *Permissions) Disabled() map[string]string {
	out := map[string]string{}
	for _, op := range Operations {
		if m := p.Missing(op); len(m) > 0 {
			out[op] = p.reason(op, m)
		}
	}
	return out
}

// ReadOnly reports whether no operation may run: the user can at most read.
func (p *Permissions) ReadOnly() bool { return len(p.Disabled()) == len(Operations) }

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// PartialError is the error of a listing across all namespaces that was forbidden
// and fell back to the namespaces the user may read.
type PartialError struct {
	// Read are the namespaces listed.
	Read []string
	// Skipped are namespaces tried and refused, with why.
	Skipped map[string]string
	// Cause is why the listing across all namespaces failed.
	Cause error
}

func (e *PartialError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: your credentials may not list secrets across all namespaces, so only namespace", ErrPartial)
	if len(e.Read) != 1 {
		b.WriteString("s")
	}
	fmt.Fprintf(&b, " %s %s shown; releases in every other namespace are not", strings.Join(e.Read, ", "), map[bool]string{true: "is", false: "are"}[len(e.Read) == 1])
	if len(e.Skipped) > 0 {
		var names []string
		for ns := range e.Skipped {
			names = append(names, ns)
		}
		sort.Strings(names)
		fmt.Fprintf(&b, " (also refused: %s)", strings.Join(names, ", "))
	}
	b.WriteString(". Name more namespaces with --namespaces, or ask for a ClusterRole granting \"list\" on secrets to see them all")
	return b.String()
}

// Unwrap lets errors.Is find ErrPartial and the cause (ErrForbidden).
func (e *PartialError) Unwrap() []error { return []error{ErrPartial, e.Cause} }

// eachReadable runs list in each fallback namespace after a listing across all
// namespaces failed with cause. It returns nil, cause when none could be read, and
// a *PartialError otherwise.
func (cfg Config) eachReadable(cause error, list func(ns string) error) error {
	pe := &PartialError{Skipped: map[string]string{}, Cause: cause}
	for _, ns := range cfg.fallbackNamespaces() {
		if err := list(ns); err != nil {
			if !errors.Is(err, ErrForbidden) {
				return err
			}
			pe.Skipped[ns] = err.Error()
			continue
		}
		pe.Read = append(pe.Read, ns)
	}
	if len(pe.Read) == 0 {
		return cause
	}
	return pe
}
