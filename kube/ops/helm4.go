package ops

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/resource"

	action4 "helm.sh/helm/v4/pkg/action"
	kube4 "helm.sh/helm/v4/pkg/kube"
	releasei "helm.sh/helm/v4/pkg/release"
	common4 "helm.sh/helm/v4/pkg/release/common"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	storage4 "helm.sh/helm/v4/pkg/storage"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
)

// helm4 runs an operation with Helm 4's actions, types and drivers: every field
// Helm 4 writes is kept, and resources are applied as Helm 4 applies them
// (server-side for a release it applied server-side, under the field manager the
// plan names: see ServerSide).
type helm4 struct {
	env   helmEnv
	t     *tracker
	drv   driver4.Driver
	force func(key string) error
	kc    kube4.Interface
	// kcAs is the field manager kc applies under ("": Helm's).
	kcAs string
}

var _ helm = (*helm4)(nil)

// statusComputeWorkers is what Helm 4's CLI sets for its waits, so that slow
// status reads of many resources do not hold each other up.
const statusComputeWorkers = 8

func newHelm4(e helmEnv) (helm, error) {
	pn := e.pins()
	h := &helm4{env: e, t: newTracker(pn)}
	switch e.p.Driver {
	case kube.DriverSecret:
		d := driver4.NewSecrets(e.secrets(pn))
		d.SetLogger(e.log.handler())
		h.drv, h.force = d, e.helmStoreDeleter(pn, driver4.ErrReleaseNotFound)
	case kube.DriverConfigMap:
		d := driver4.NewConfigMaps(e.configMaps(pn))
		d.SetLogger(e.log.handler())
		h.drv, h.force = d, e.helmStoreDeleter(pn, driver4.ErrReleaseNotFound)
	default:
		d, force, err := chunked4(e)
		if err != nil {
			return nil, err
		}
		h.drv, h.force = d, force
	}
	h.drv = tracked4{Driver: h.drv, t: h.t}
	return h, nil
}

func (h *helm4) major() int              { return 4 }
func (h *helm4) track() *tracker         { return h.t }
func (h *helm4) explain(err error) error { return h.env.log.explain(err) }

// kube returns Helm 4's kube client for the release's resources, guarded.
func (h *helm4) kube() (kube4.Interface, error) { return h.kubeAs(h.kcAs) }

// kubeAs is kube for a client that applies under field manager manager ("":
// Helm's).
func (h *helm4) kubeAs(manager string) (kube4.Interface, error) {
	if h.kc != nil && h.kcAs == manager {
		return h.kc, nil
	}
	a := appliersOf(h.env.r.c)
	if a == nil {
		return nil, errNoAppliers
	}
	var kc kube4.Interface
	var err error
	if ma, ok := a.(managedAppliers); ok && manager != "" {
		kc, err = ma.Helm4As(h.env.resNS, manager)
	} else {
		kc, err = a.Helm4(h.env.resNS)
	}
	if err != nil {
		return nil, err
	}
	if c, ok := kc.(*kube4.Client); ok {
		// Helm 4 logs through slog's default handler, to stderr, unless told.
		c.SetLogger(h.env.log.handler())
	}
	h.kc, h.kcAs = guard4(kc, h.t), manager
	return h.kc, nil
}

// config is Helm 4's action configuration over the operation's driver and kube
// client. It is built whole rather than with Configuration.Init, which would
// make a driver and a kube client of its own only to have them replaced.
func (h *helm4) config() (*action4.Configuration, error) {
	kc, err := h.kube()
	if err != nil {
		return nil, err
	}
	cfg := action4.NewConfiguration(action4.ConfigurationSetLogger(h.env.log.handler()))
	st := storage4.Init(h.drv)
	st.SetLogger(h.env.log.handler())
	cfg.Releases, cfg.KubeClient = st, kc
	return cfg, nil
}

func (h *helm4) build(manifest string) ([]*resource.Info, error) {
	kc, err := h.kube()
	if err != nil {
		return nil, err
	}
	return kc.Build(strings.NewReader(manifest), false)
}

// wait returns Helm 4's wait strategy and options for o: its CLI's default
// (hooks only) without --wait, its status watcher (kstatus) with it.
func wait4(o waitOptions) (kube4.WaitStrategy, []kube4.WaitOption, time.Duration) {
	timeout := o.timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	if !o.wait {
		return kube4.HookOnlyStrategy, nil, timeout
	}
	return kube4.StatusWatcherStrategy, []kube4.WaitOption{kube4.WithStatusComputeWorkers(statusComputeWorkers)}, timeout
}

func (h *helm4) rollback(name string, to int, o waitOptions) error {
	if _, err := h.kubeAs(o.manager); err != nil {
		return err
	}
	cfg, err := h.config()
	if err != nil {
		return err
	}
	rb := action4.NewRollback(cfg)
	rb.Version = to
	// chunkview never prunes history behind the user's back.
	rb.MaxHistory = 0
	// Left empty, the rollback fails after applying the objects and leaves the
	// new revision pending-rollback. ServerSideApply stays "auto", the CLI's
	// default: the apply method of the revision rolled back to decides.
	rb.WaitStrategy, rb.WaitOptions, rb.Timeout = wait4(o)
	// Only set for a rollback the plan found applied server-side: Helm refuses
	// it for a client-side one.
	rb.ForceConflicts = o.forceConflicts
	return rb.Run(name)
}

func (h *helm4) uninstall(name string, keepHistory bool) error {
	cfg, err := h.config()
	if err != nil {
		return err
	}
	u := action4.NewUninstall(cfg)
	u.KeepHistory = keepHistory
	u.WaitStrategy, u.WaitOptions, u.Timeout = wait4(waitOptions{})
	u.DeletionPropagation = "background" // helm uninstall's --cascade default
	_, err = u.Run(name)
	return err
}

// get reads the record of key as Helm 4's release.
func (h *helm4) get(key string) (*release4.Release, error) {
	ri, err := h.drv.Get(key)
	if err != nil {
		return nil, err
	}
	return asRelease4(ri)
}

// asRelease4 is Helm 4's own conversion of a Releaser: its drivers return
// *release/v1.Release values.
func asRelease4(ri releasei.Releaser) (*release4.Release, error) {
	switch r := ri.(type) {
	case *release4.Release:
		return r, nil
	case release4.Release:
		return &r, nil
	}
	return nil, fmt.Errorf("unsupported release type %T", ri)
}

func (h *helm4) status(key string) (string, string, error) {
	rls, err := h.get(key)
	if err != nil || rls.Info == nil {
		return "", "", err
	}
	return rls.Info.Status.String(), rls.Info.Description, nil
}

func (h *helm4) setStatus(key, status, description string, stamp bool) error {
	rls, err := h.get(key)
	if err != nil {
		return err
	}
	if rls.Info == nil {
		rls.Info = &release4.Info{}
	}
	rls.Info.Status = common4.Status(status)
	rls.Info.Description = description
	if stamp {
		rls.Info.LastDeployed = time.Now()
	}
	return h.drv.Update(key, rls)
}

func (h *helm4) delete(key string) error {
	_, err := h.drv.Delete(key)
	return err
}

func (h *helm4) forceDelete(key string) error {
	err := h.force(key)
	h.t.note("deleted", key, "", err)
	return err
}

// tracked4 is a Helm 4 driver that reports every call to the operation's tracker.
type tracked4 struct {
	driver4.Driver
	t *tracker
}

func status4(ri releasei.Releaser) string {
	rls, err := asRelease4(ri)
	if err != nil || rls == nil || rls.Info == nil {
		return ""
	}
	return rls.Info.Status.String()
}

func (d tracked4) Get(key string) (releasei.Releaser, error) {
	rls, err := d.Driver.Get(key)
	d.t.note("", key, "", err)
	return rls, err
}

func (d tracked4) List(filter func(releasei.Releaser) bool) ([]releasei.Releaser, error) {
	rls, err := d.Driver.List(filter)
	d.t.note("", "", "", err)
	return rls, err
}

func (d tracked4) Query(labels map[string]string) ([]releasei.Releaser, error) {
	rls, err := d.Driver.Query(labels)
	d.t.note("", "", "", err)
	return rls, err
}

func (d tracked4) Create(key string, rls releasei.Releaser) error {
	err := d.Driver.Create(key, rls)
	d.t.note("created", key, status4(rls), err)
	return err
}

func (d tracked4) Update(key string, rls releasei.Releaser) error {
	err := d.Driver.Update(key, rls)
	d.t.note("updated", key, status4(rls), err)
	return err
}

func (d tracked4) Delete(key string) (releasei.Releaser, error) {
	rls, err := d.Driver.Delete(key)
	d.t.note("deleted", key, "", err)
	return rls, err
}
