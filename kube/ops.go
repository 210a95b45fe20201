package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"helm.sh/helm/v3/pkg/action"
	helmkube "helm.sh/helm/v3/pkg/kube"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// KubeClientFactory returns the Helm kube client that applies and deletes the
// resources of a release living in namespace ns.
type KubeClientFactory func(ns string) (helmkube.Interface, error)

// DiscardKubeClients is a KubeClientFactory whose clients apply nothing: the demo's,
// whose in-memory cluster holds release records only.
func DiscardKubeClients(string) (helmkube.Interface, error) {
	return &kubefake.PrintingKubeClient{Out: io.Discard}, nil
}

// ActionConfig returns Helm's action configuration for a release looked up in
// namespace ns, with the chunked driver as its storage.
func (c *Client) ActionConfig(ns, releaseNamespace string) (*action.Configuration, error) {
	cfg, _, err := c.actionConfig(ns, releaseNamespace)
	return cfg, err
}

func (c *Client) actionConfig(ns, releaseNamespace string) (*action.Configuration, *helmLog, error) {
	if c.kubes == nil {
		return nil, nil, errors.New("this connection cannot apply release resources")
	}
	kc, err := c.kubes(releaseNamespace)
	if err != nil {
		return nil, nil, err
	}
	log := &helmLog{}
	return &action.Configuration{
		Releases:   helmstorage.Init(c.Driver(ns)),
		KubeClient: kc,
		Log:        log.Log,
	}, log, nil
}

// helmLog keeps the failures Helm logs during one action. Helm reports some causes
// only there: an uninstall whose resources cannot be deleted returns just "failed to
// delete release: NAME" and logs why.
type helmLog struct {
	mu       sync.Mutex
	failures []string
}

// maxHelmFailures bounds the log lines kept for an error message.
const maxHelmFailures = 5

func (l *helmLog) Log(format string, v ...interface{}) {
	line := fmt.Sprintf(format, v...)
	lower := strings.ToLower(line)
	if !strings.Contains(lower, "fail") && !strings.Contains(lower, "error") {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < maxHelmFailures {
		l.failures = append(l.failures, line)
	}
}

// explain adds the failures Helm logged to err, unless err says it already.
func (l *helmLog) explain(err error) error {
	if l == nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var extra []string
	for _, f := range l.failures {
		if !strings.Contains(err.Error(), f) {
			extra = append(extra, f)
		}
	}
	if len(extra) == 0 {
		return err
	}
	return fmt.Errorf("%w (Helm reported: %s)", err, strings.Join(extra, "; "))
}

func (c *Client) checkWritable(what string) error {
	if c.cfg.ReadOnly {
		return fmt.Errorf("%w: %s is disabled (started with --read-only)", ErrReadOnly, what)
	}
	return nil
}

// releaseNamespace returns the namespace a release's resources live in.
func (c *Client) releaseNamespace(ctx context.Context, row RevisionRow) string {
	if row.Summary.Namespace != "" {
		return row.Summary.Namespace
	}
	if d, err := c.Details(ctx, row); err == nil && d.Release != nil && d.Release.Namespace != "" {
		return d.Release.Namespace
	}
	return row.StorageNamespace
}

// DiffOptions says how to compare revisions.
type DiffOptions = revdiff.Options

// Diff compares two revisions of a release.
func (c *Client) Diff(ctx context.Context, ns, name string, from, to int, opts DiffOptions) (*revdiff.Result, error) {
	a, err := c.decodedRevision(ctx, ns, name, from)
	if err != nil {
		return nil, err
	}
	b, err := c.decodedRevision(ctx, ns, name, to)
	if err != nil {
		return nil, err
	}
	return revdiff.Diff(a, b, opts)
}

// Release decodes one revision of a release; rev 0 means the latest.
func (c *Client) Release(ctx context.Context, ns, name string, rev int) (*release.Release, error) {
	return c.decodedRevision(ctx, ns, name, rev)
}

func (c *Client) decodedRevision(ctx context.Context, ns, name string, rev int) (*release.Release, error) {
	row, err := c.Revision(ctx, ns, name, rev)
	if err != nil {
		return nil, err
	}
	d, err := c.Details(ctx, row)
	if err != nil {
		return nil, err
	}
	if d.Release == nil {
		return nil, fmt.Errorf("revision %d of %q cannot be read: %s", row.Revision, name, d.Row.Problem)
	}
	return d.Release, nil
}

// RollbackPlan is what a rollback would do: the revision it starts from, the one it
// restores, and the changes between them.
type RollbackPlan struct {
	Name    string          `json:"name"`
	From    int             `json:"from"`
	To      int             `json:"to"`
	Diff    *revdiff.Result `json:"diff"`
	Applied bool            `json:"applied"`
	// NewRevision is the revision the rollback created, once applied.
	NewRevision int `json:"newRevision,omitempty"`
}

// PlanRollback returns what rolling back to rev (0: the one before the latest) would
// change, without changing anything.
func (c *Client) PlanRollback(ctx context.Context, ns, name string, rev int, opts DiffOptions) (*RollbackPlan, error) {
	rows, err := c.History(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	latest := rows[len(rows)-1].Revision
	if rev == 0 {
		if len(rows) < 2 {
			return nil, fmt.Errorf("release %q has only revision %d: nothing to roll back to", name, latest)
		}
		rev = rows[len(rows)-2].Revision
	}
	if rev == latest {
		return nil, fmt.Errorf("revision %d is already the latest of %q", rev, name)
	}
	d, err := c.Diff(ctx, ns, name, latest, rev, opts)
	if err != nil {
		return nil, err
	}
	return &RollbackPlan{Name: name, From: latest, To: rev, Diff: d}, nil
}

// Rollback rolls a release back to revision rev (0: the one before the latest) with
// Helm's own rollback action, through the chunked driver.
func (c *Client) Rollback(ctx context.Context, ns, name string, rev int, opts DiffOptions) (*RollbackPlan, error) {
	if err := c.checkWritable("rollback"); err != nil {
		return nil, err
	}
	plan, err := c.PlanRollback(ctx, ns, name, rev, opts)
	if err != nil {
		return nil, err
	}
	row, err := c.Revision(ctx, ns, name, 0)
	if err != nil {
		return nil, err
	}
	cfg, log, err := c.actionConfig(row.StorageNamespace, c.releaseNamespace(ctx, row))
	if err != nil {
		return nil, err
	}
	// Helm's rollback, unlike its upgrade, goes ahead when the latest revision is
	// pending, so that a stuck release can be rolled back. A revision that has just
	// turned pending is an operation in flight, though: rolling back over it would
	// leave two revisions deployed. The guard refuses that case only.
	cfg.Releases = helmstorage.Init(pendingGuard{Driver: c.Driver(row.StorageNamespace), now: c.now})
	// Both revisions were decoded for the plan; the details cache has them.
	if from, err := c.decodedRevision(ctx, ns, name, plan.From); err == nil {
		if to, err := c.decodedRevision(ctx, ns, name, plan.To); err == nil {
			if err := c.checkResources(ctx, "rollback", cfg.KubeClient, from.Manifest, to.Manifest); err != nil {
				return plan, err
			}
		}
	}
	rb := action.NewRollback(cfg)
	rb.Version = plan.To
	rb.MaxHistory = 0
	if err := rb.Run(name); err != nil {
		if !errors.Is(err, ErrInProgress) && !errors.Is(err, driver.ErrReleaseExists) {
			c.markAbandoned(ctx, ns, name, plan.From+1, plan.To, err)
		}
		return plan, c.explainOp("rollback", row.StorageNamespace, log.explain(err))
	}
	plan.Applied = true
	if now, err := c.Revision(ctx, ns, name, 0); err == nil {
		plan.NewRevision = now.Revision
	}
	if err := c.supersedeOlder(ctx, row.StorageNamespace, name); err != nil {
		return plan, c.explainOp("rollback", row.StorageNamespace,
			fmt.Errorf("rolled back, but an older revision is still marked deployed and could not be marked superseded: %w", err))
	}
	return plan, nil
}

// markAbandoned marks failed the revision a failed rollback left pending-rollback,
// as Helm does when it gets the chance: when the request that created it failed
// after being applied, or when the write of its failure failed too, Helm leaves it
// pending, and the next rollback would take it for an operation in flight. Best
// effort: when the cluster cannot be reached now, fix-stuck does it later.
func (c *Client) markAbandoned(ctx context.Context, ns, name string, rev, to int, cause error) {
	row, err := c.Revision(ctx, ns, name, 0)
	if err != nil || row.Revision != rev || row.Status != release.StatusPendingRollback.String() {
		return
	}
	drv := c.Driver(row.StorageNamespace).WithContext(ctx)
	rls, err := drv.Get(row.Key)
	// Helm's own description of the revision it created; anything else is another
	// operation's.
	if err != nil || rls.Info == nil || rls.Info.Status != release.StatusPendingRollback || rls.Info.Description != fmt.Sprintf("Rollback to %d", to) {
		return
	}
	rls.Info.Status = release.StatusFailed
	rls.Info.Description = "Rollback failed: " + firstLine(cause.Error(), 200)
	_ = drv.Update(row.Key, rls)
}

// firstLine returns s up to its first newline, at most n bytes.
func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// pendingGrace is how long after it started a pending revision counts as an
// operation in flight rather than a stuck one.
const pendingGrace = 2 * time.Minute

// ErrInProgress is wrapped by the error of an operation refused because another one
// is running on the release.
var ErrInProgress = errors.New("another operation is in progress on the release")

// pendingGuard is the driver under Helm's rollback: its history query fails when
// the latest revision turned pending less than pendingGrace ago.
type pendingGuard struct {
	driver.Driver
	now func() time.Time
}

func (g pendingGuard) Query(lbs map[string]string) ([]*release.Release, error) {
	rels, err := g.Driver.Query(lbs)
	// Helm's history query is exactly name and owner; its other queries add status.
	if err != nil || len(lbs) != 2 || lbs["name"] == "" || lbs["owner"] == "" || len(rels) == 0 {
		return rels, err
	}
	latest := rels[0]
	for _, r := range rels {
		if r.Version > latest.Version {
			latest = r
		}
	}
	if latest.Info != nil && latest.Info.Status.IsPending() {
		if since := g.now().Sub(latest.Info.LastDeployed.Time); since < pendingGrace {
			return nil, fmt.Errorf("%w: revision %d of %q has been %s for %s; nothing was changed: wait for that operation to finish and retry (if it was interrupted, for example by a lost connection, `chunkview fix-stuck %s --mark-failed` gets it out)",
				ErrInProgress, latest.Version, latest.Name, latest.Info.Status, since.Round(time.Second), latest.Name)
		}
	}
	return rels, nil
}

// supersedeOlder marks superseded every deployed revision of a release older than
// its latest deployed one. Helm's rollback logs and ignores a failure to write the
// previous revision's new status, which leaves two revisions deployed; this finishes
// its job. A revision that changed meanwhile (a conflict) is left to whoever changed
// it.
func (c *Client) supersedeOlder(ctx context.Context, ns, name string) error {
	rows, err := c.History(ctx, ns, name)
	if err != nil {
		return err
	}
	top := 0
	for _, r := range rows {
		if r.Status == release.StatusDeployed.String() && r.Revision > top {
			top = r.Revision
		}
	}
	drv := c.Driver(rows[0].StorageNamespace).WithContext(ctx)
	for _, r := range rows {
		if r.Status != release.StatusDeployed.String() || r.Revision >= top {
			continue
		}
		rls, err := drv.Get(r.Key)
		if err != nil {
			return err
		}
		rls.Info.Status = release.StatusSuperseded
		if err := drv.Update(r.Key, rls); err != nil && !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	return nil
}

// Uninstall removes a release's resources and its records (all revisions), or with
// keepHistory marks it uninstalled and keeps the records, with Helm's own action.
func (c *Client) Uninstall(ctx context.Context, ns, name string, keepHistory bool) (*release.UninstallReleaseResponse, error) {
	if err := c.checkWritable("uninstall"); err != nil {
		return nil, err
	}
	row, err := c.Revision(ctx, ns, name, 0)
	if err != nil {
		return nil, err
	}
	cfg, log, err := c.actionConfig(row.StorageNamespace, c.releaseNamespace(ctx, row))
	if err != nil {
		return nil, err
	}
	// A release already uninstalled with its history kept has no resources left
	// for Helm to delete: only its records go.
	if row.Status != release.StatusUninstalled.String() {
		if latest, err := c.decodedRevision(ctx, ns, name, row.Revision); err == nil {
			if err := c.checkResources(ctx, "uninstall", cfg.KubeClient, latest.Manifest, ""); err != nil {
				return nil, err
			}
		}
	}
	u := action.NewUninstall(cfg)
	u.KeepHistory = keepHistory
	u.DisableHooks = false
	res, err := u.Run(name)
	if err != nil {
		return res, c.explainOp("uninstall", row.StorageNamespace, log.explain(err))
	}
	return res, nil
}

// DeleteRevision deletes one revision record (its index and chunks) through the
// driver. With force it does so without decoding it, for a revision that cannot be
// read. The release's resources are left as they are.
func (c *Client) DeleteRevision(ctx context.Context, ns, name string, rev int, force bool) error {
	if err := c.checkWritable("delete-revision"); err != nil {
		return err
	}
	if rev <= 0 {
		return fmt.Errorf("delete-revision needs a revision number")
	}
	row, err := c.Revision(ctx, ns, name, rev)
	if err != nil {
		return err
	}
	drv := c.Driver(row.StorageNamespace).WithContext(ctx)
	if force {
		err = drv.ForceDelete(row.Key)
	} else {
		_, err = drv.Delete(row.Key)
	}
	if err != nil {
		if errors.Is(err, driver.ErrReleaseNotFound) {
			return fmt.Errorf("%w: revision %d of %q is already gone", ErrNotFound, rev, name)
		}
		if !force && errors.Is(err, storage.ErrCorrupt) {
			return fmt.Errorf("%w; this revision cannot be decoded: use --force to delete its record anyway", err)
		}
		return c.explainOp("delete-revision", row.StorageNamespace, err)
	}
	return nil
}

// StuckFix is a way out of a release stuck in a pending state.
type StuckFix string

// The fixes for a stuck release.
const (
	// FixMarkFailed sets the pending revision's status to failed, so Helm lets the
	// next upgrade or rollback proceed. Warning: if the operation is in fact still
	// running, two operations will then act on the release at once.
	FixMarkFailed StuckFix = "mark-failed"
	// FixDeletePending deletes the pending revision's record, so the previous
	// revision is the latest again. Warning: resources the pending operation already
	// applied stay as they are, unrecorded.
	FixDeletePending StuckFix = "delete-pending"
)

// Warning returns the warning to show before applying f.
func (f StuckFix) Warning() string {
	switch f {
	case FixMarkFailed:
		return "Only do this if no Helm operation on this release is still running (check the operator's or CI's logs): marking it failed lets the next upgrade or rollback start while the old one might still be applying resources."
	case FixDeletePending:
		return "This deletes the pending revision's record. Resources that the interrupted operation already applied stay in the cluster but are no longer recorded; a later upgrade or rollback will reconcile them."
	}
	return ""
}

// Stuck describes a release whose latest revision is pending.
type Stuck struct {
	Row RevisionRow `json:"row"`
	// For is how long the revision has been pending.
	For time.Duration `json:"for"`
}

// StuckInfo reports whether a release is stuck, and for how long.
func (c *Client) StuckInfo(ctx context.Context, ns, name string) (*Stuck, error) {
	row, err := c.Revision(ctx, ns, name, 0)
	if err != nil {
		return nil, err
	}
	if !Pending(row.Status) {
		return nil, nil
	}
	since := row.Updated
	if d, err := c.Details(ctx, row); err == nil && d.Release != nil && d.Release.Info != nil && !d.Release.Info.LastDeployed.IsZero() {
		since = d.Release.Info.LastDeployed.Time
	}
	return &Stuck{Row: row, For: c.now().Sub(since).Round(time.Second)}, nil
}

// FixStuck applies fix to the pending latest revision of a release.
func (c *Client) FixStuck(ctx context.Context, ns, name string, fix StuckFix) error {
	if err := c.checkWritable("fixing a stuck release"); err != nil {
		return err
	}
	st, err := c.StuckInfo(ctx, ns, name)
	if err != nil {
		return err
	}
	if st == nil {
		return fmt.Errorf("release %q is not pending: nothing to fix", name)
	}
	switch fix {
	case FixDeletePending:
		return c.DeleteRevision(ctx, ns, name, st.Row.Revision, false)
	case FixMarkFailed:
		drv := c.Driver(st.Row.StorageNamespace).WithContext(ctx)
		rls, err := drv.Get(st.Row.Key)
		if err != nil {
			return c.explainOp("mark failed", st.Row.StorageNamespace, err)
		}
		was := rls.Info.Status
		rls.Info.Status = release.StatusFailed
		rls.Info.Description = fmt.Sprintf("Marked failed by chunkview after %s in %s", st.For, was)
		rls.Info.LastDeployed = helmtime.Now()
		if err := drv.Update(st.Row.Key, rls); err != nil {
			return c.explainOp("mark failed", st.Row.StorageNamespace, err)
		}
		return nil
	}
	return fmt.Errorf("unknown fix %q (want %s or %s)", fix, FixMarkFailed, FixDeletePending)
}

// Verify checks the records in view, or those of one release.
//
// When listing across all namespaces is forbidden, it checks the namespaces the
// user may read and returns their reports with a *PartialError (ErrPartial) that
// names the rest.
func (c *Client) Verify(ctx context.Context, name string, decode bool) ([]NamespaceReport, error) {
	return c.verifyEach(ctx, storage.VerifyOptions{Release: name, Decode: decode})
}

// verifyEach runs storage.Verify with opts in each storage namespace in view.
func (c *Client) verifyEach(ctx context.Context, opts storage.VerifyOptions) ([]NamespaceReport, error) {
	opts.Config, opts.Now = c.cfg.Driver, c.now()
	var out []NamespaceReport
	err := c.eachStorageNamespace(ctx, func(ns string) error {
		rep, err := storage.Verify(ctx, c.cs.CoreV1().Secrets(ns), c.cfg.Owner, opts)
		if err != nil {
			return Explain(err, "list", "secrets", ns)
		}
		out = append(out, NamespaceReport{Namespace: ns, Report: rep})
		return nil
	})
	return out, err
}

// NamespaceReport is the verification of one storage namespace.
type NamespaceReport struct {
	Namespace string `json:"namespace"`
	*storage.Report
}

// GC removes leftover chunk Secrets (or with dryRun only lists them) in every
// storage namespace in view. It returns the leftovers found and how many went.
func (c *Client) GC(ctx context.Context, dryRun bool) ([]NamespaceReport, int, error) {
	if !dryRun {
		if err := c.checkWritable("gc"); err != nil {
			return nil, 0, err
		}
	}
	reps, err := c.Verify(ctx, "", false)
	var partial error
	if errors.Is(err, ErrPartial) {
		partial, err = err, nil
	}
	if err != nil {
		return reps, 0, err
	}
	if dryRun {
		return reps, 0, partial
	}
	removed := 0
	var errs []error
	for _, r := range reps {
		n, err := storage.RemoveLeftovers(ctx, c.cs.CoreV1().Secrets(r.Namespace), r.Leftovers)
		removed += n
		if err != nil {
			errs = append(errs, Explain(err, "delete", "secrets", r.Namespace))
		}
	}
	if len(errs) > 0 {
		return reps, removed, fmt.Errorf("%w; what was removed is gone for good and the rest is untouched: retry gc (verify lists what is left)", errors.Join(errs...))
	}
	return reps, removed, partial
}

// eachStorageNamespace runs fn in each storage namespace in view, stopping at the
// first error. When listing across all namespaces is forbidden, it runs fn in the
// namespaces the user may read instead (the context's and --namespaces), skipping
// those fn finds forbidden, and returns a *PartialError that names what was left
// out; it returns the cause when none could be read.
func (c *Client) eachStorageNamespace(ctx context.Context, fn func(ns string) error) error {
	nss, err := c.storageNamespaces(ctx)
	if errors.Is(err, ErrForbidden) && c.listNamespace() == "" {
		return c.eachReadable(err, fn)
	}
	if err != nil {
		return err
	}
	for _, ns := range nss {
		if err := fn(ns); err != nil {
			return err
		}
	}
	return nil
}

// storageNamespaces returns the namespaces that hold records in view: the one
// looked at, or with -A those holding index or chunk Secrets of the owner. Chunks
// count on their own, since the leftovers of an interrupted delete of a namespace's
// last release are all that is left of it. Listing across all namespaces may be
// forbidden: the error then wraps ErrForbidden.
func (c *Client) storageNamespaces(ctx context.Context) ([]string, error) {
	ns := c.listNamespace()
	if ns != "" {
		return []string{ns}, nil
	}
	sel := labels.Set{storage.LabelOwner: c.cfg.Owner}
	opts := metav1.ListOptions{LabelSelector: labels.SelectorFromSet(sel).String(), Limit: metadataPage}
	seen := map[string]bool{}
	var out []string
	for {
		list, err := c.md.Resource(secretsGVR).List(ctx, opts)
		if err != nil {
			return nil, Explain(err, "list", "secrets", "")
		}
		for _, m := range list.Items {
			if !seen[m.Namespace] {
				seen[m.Namespace] = true
				out = append(out, m.Namespace)
			}
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	sort.Strings(out)
	return out, nil
}

func (c *Client) explainOp(op, ns string, err error) error {
	switch {
	case errors.Is(err, storage.ErrConflict):
		return fmt.Errorf("%s: the release changed while chunkview was writing it (another operator or helm run?); nothing was overwritten: refresh and retry: %w", op, err)
	case errors.Is(err, driver.ErrReleaseExists):
		// Helm numbers a new revision after the latest it read; another operation
		// stored that revision first.
		return fmt.Errorf("%s: %w: another operation (an operator, helm or chunkview) wrote a new revision of the release at the same time; nothing was overwritten: refresh and retry", op, storage.ErrConflict)
	case errors.Is(err, ErrReadOnly), errors.Is(err, ErrInProgress):
		return err
	}
	// The operation made several requests and one failed: those before it were
	// applied. Every record is whole either way (the driver writes chunks before the
	// index that names them), so what is left to check is where it stopped.
	return fmt.Errorf("%s: %w; it may have been partly applied: check the release with `chunkview history` and `chunkview verify`, remove leftover chunks with `chunkview gc`, then retry", op, Explain(err, "update", "secrets", ns))
}
