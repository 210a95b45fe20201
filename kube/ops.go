package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/action"
	helmkube "helm.sh/helm/v3/pkg/kube"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

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
	rows, err := c.History(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	var pair [2]RevisionRow
	for i, rev := range []int{from, to} {
		if pair[i], err = pickRevision(rows, name, rev); err != nil {
			return nil, err
		}
	}
	// Both revisions are read and decoded side by side: each is a few requests
	// and a gunzip and JSON decode that do not depend on the other.
	var (
		rels [2]*release.Release
		errs [2]error
		wg   sync.WaitGroup
	)
	for i, row := range pair {
		wg.Go(func() { rels[i], errs[i] = c.decodeRow(ctx, name, row) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // from's first, as when they were read in turn
		}
	}
	return revdiff.Diff(rels[0], rels[1], opts)
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
	return c.decodeRow(ctx, name, row)
}

// decodeRow decodes the revision row shows (through the details cache), failing
// when it cannot be read.
func (c *Client) decodeRow(ctx context.Context, name string, row RevisionRow) (*release.Release, error) {
	d, err := c.Details(ctx, row)
	if err != nil {
		return nil, err
	}
	if d.Release == nil {
		return nil, fmt.Errorf("revision %d of %q cannot be read: %s", row.Revision, name, d.Row.Problem)
	}
	return d.Release, nil
}

func (c *Client) explainOp(op, ns string, err error) error {
	switch {
	case errors.Is(err, ErrChanged):
		return err
	case errors.Is(err, storage.ErrConflict):
		return fmt.Errorf("%s: %w (another operator, helm or chunkview wrote it at the same time); nothing was overwritten: look at its history again and retry: %w", op, ErrChanged, err)
	case errors.Is(err, driver.ErrReleaseExists):
		// Helm numbers a new revision after the latest it read; another operation
		// stored that revision first.
		return fmt.Errorf("%s: %w: another operation (an operator, helm or chunkview) wrote a new revision of the release at the same time; nothing was overwritten: look at its history again and retry", op, ErrChanged)
	case errors.Is(err, ErrReadOnly), errors.Is(err, ErrInProgress):
		return err
	}
	// The operation made several requests and one failed: those before it were
	// applied. Every record is whole either way (the driver writes chunks before the
	// index that names them), so what is left to check is where it stopped.
	return fmt.Errorf("%s: %w; it may have been partly applied: check the release with `chunkview history` and `chunkview verify`, remove leftover chunks with `chunkview gc`, then retry", op, Explain(err, "update", "secrets", ns))
}
