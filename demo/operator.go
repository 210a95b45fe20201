package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

// OperatorEnv names the environment variable that sets the demo operator's pace:
// a duration ("2s") between revisions, or "off".
const OperatorEnv = "CHUNKVIEW_DEMO_OPERATOR"

// OperatorRelease is the sample release the demo operator upgrades, in
// OperatorNamespace.
const (
	OperatorRelease   = "podinfo"
	OperatorNamespace = "demo"
)

// OperatorOptions pace the demo operator.
type OperatorOptions struct {
	// Every is the time between two revisions; zero means 15 to 20 seconds,
	// drawn anew each time, as a reconcile loop's period jitters.
	Every time.Duration
	// Pending is how long a new revision stays pending-upgrade before it is
	// deployed: two seconds, or a third of Every when that is shorter.
	Pending time.Duration
	// Now dates the revisions it writes; nil means time.Now. Give it the
	// demo's Clock.
	Now func() time.Time
}

// ParseOperatorEnv reads OperatorEnv's value: "" the default pace, "off" no
// operator (ok false), else a Go duration.
func ParseOperatorEnv(v string) (opts OperatorOptions, ok bool, err error) {
	switch strings.TrimSpace(strings.ToLower(v)) {
	case "":
		return OperatorOptions{}, true, nil
	case "off", "0", "false", "no":
		return OperatorOptions{}, false, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d <= 0 {
		return OperatorOptions{}, false, fmt.Errorf("%s=%q: want a duration such as 2s, or off", OperatorEnv, v)
	}
	return OperatorOptions{Every: d}, true, nil
}

// RunOperator acts as an operator reconciling podinfo until ctx is done: every
// so often it writes a new revision through chunkview's chunked driver,
// pending-upgrade, marks the one before superseded, and a moment later marks the
// new one deployed, as Helm's upgrade action does. It lets the live view be seen
// without a cluster. Errors (the release was uninstalled, say) skip a round.
func RunOperator(ctx context.Context, c *fakeapi.Cluster, opts OperatorOptions) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	cfg := DriverConfig()
	cfg.Now = now
	drv := storage.NewDriver(c.Clientset().CoreV1().Secrets(OperatorNamespace), storage.HelmOwner, cfg)
	for {
		every := opts.Every
		if every <= 0 {
			every = 15*time.Second + rand.N(5*time.Second)
		}
		pending := opts.Pending
		if pending <= 0 {
			pending = min(2*time.Second, every/3)
		}
		if !wait(ctx, every) {
			return
		}
		rel, err := upgradeOnce(drv, now())
		if err != nil {
			continue
		}
		if !wait(ctx, pending) {
			return
		}
		rel.Info.Status = release.StatusDeployed
		rel.Info.Description = "Upgrade complete"
		_ = drv.Update(storage.RecordKey(rel.Name, rel.Version), rel)
	}
}

// upgradeOnce stores the next revision of podinfo, pending-upgrade, and
// supersedes the deployed one.
func upgradeOnce(drv *storage.ChunkedSecrets, at time.Time) (*release.Release, error) {
	rels, err := drv.Query(map[string]string{"name": OperatorRelease, "owner": storage.HelmOwner})
	if err != nil {
		return nil, err
	}
	var latest *release.Release
	for _, r := range rels {
		if latest == nil || r.Version > latest.Version {
			latest = r
		}
	}
	for _, r := range rels {
		if r.Info != nil && r.Info.Status == release.StatusDeployed {
			r.Info.Status = release.StatusSuperseded
			if err := drv.Update(storage.RecordKey(r.Name, r.Version), r); err != nil {
				return nil, err
			}
		}
	}
	next := *latest
	info := *latest.Info
	next.Info = &info
	next.Version = latest.Version + 1
	next.Info.FirstDeployed, next.Info.LastDeployed = latest.Info.FirstDeployed, helmtime.Time{Time: at}
	next.Info.Status = release.StatusPendingUpgrade
	next.Info.Description = "Preparing upgrade"
	cfg := map[string]any{}
	for k, v := range latest.Config {
		cfg[k] = v
	}
	cfg["podAnnotations"] = map[string]any{"demo.chunkview.io/reconcile": fmt.Sprint(next.Version)}
	next.Config = cfg
	if err := drv.Create(storage.RecordKey(next.Name, next.Version), &next); err != nil {
		return nil, err
	}
	// Keep OperatorMaxHistory revisions, as Helm's --history-max does, so that an
	// hour of the demo does not pile up hundreds.
	for _, r := range rels {
		if r.Version <= next.Version-OperatorMaxHistory {
			_, _ = drv.Delete(storage.RecordKey(r.Name, r.Version))
		}
	}
	return &next, nil
}

// OperatorMaxHistory is how many revisions of podinfo the demo operator keeps.
const OperatorMaxHistory = 10

func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
