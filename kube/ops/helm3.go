package ops

import (
	"strings"

	"k8s.io/cli-runtime/pkg/resource"

	"helm.sh/helm/v3/pkg/action"
	helmkube "helm.sh/helm/v3/pkg/kube"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/kube"
)

// helm3 runs an operation with Helm 3's actions, types and drivers.
type helm3 struct {
	env   helmEnv
	t     *tracker
	drv   driver.Driver
	force func(key string) error
	kc    helmkube.Interface
}

var _ helm = (*helm3)(nil)

func newHelm3(e helmEnv) (helm, error) {
	pn := e.pins()
	h := &helm3{env: e, t: newTracker(pn)}
	switch e.p.Driver {
	case kube.DriverSecret:
		h.drv = driver.NewSecrets(e.secrets(pn))
		h.force = e.helmStoreDeleter(pn, driver.ErrReleaseNotFound)
	case kube.DriverConfigMap:
		h.drv = driver.NewConfigMaps(e.configMaps(pn))
		h.force = e.helmStoreDeleter(pn, driver.ErrReleaseNotFound)
	default:
		d := e.chunked()
		h.drv, h.force = d, d.ForceDelete
	}
	h.drv = tracked3{Driver: h.drv, t: h.t}
	return h, nil
}

func (h *helm3) major() int              { return 3 }
func (h *helm3) track() *tracker         { return h.t }
func (h *helm3) explain(err error) error { return h.env.log.explain(err) }

// kube returns Helm 3's kube client for the release's resources, guarded.
func (h *helm3) kube() (helmkube.Interface, error) {
	if h.kc != nil {
		return h.kc, nil
	}
	a := appliersOf(h.env.r.c)
	if a == nil {
		return nil, errNoAppliers
	}
	kc, err := a.Helm3(h.env.resNS)
	if err != nil {
		return nil, err
	}
	h.kc = guard3(kc, h.t)
	return h.kc, nil
}

// config is Helm 3's action configuration over the operation's driver and kube
// client.
func (h *helm3) config() (*action.Configuration, error) {
	kc, err := h.kube()
	if err != nil {
		return nil, err
	}
	return &action.Configuration{Releases: helmstorage.Init(h.drv), KubeClient: kc, Log: h.env.log.Log}, nil
}

func (h *helm3) build(manifest string) ([]*resource.Info, error) {
	kc, err := h.kube()
	if err != nil {
		return nil, err
	}
	return kc.Build(strings.NewReader(manifest), false)
}

func (h *helm3) rollback(name string, to int, o waitOptions) error {
	cfg, err := h.config()
	if err != nil {
		return err
	}
	rb := action.NewRollback(cfg)
	rb.Version = to
	// chunkview never prunes history behind the user's back.
	rb.MaxHistory = 0
	rb.Wait, rb.Timeout = o.wait, o.timeout
	return rb.Run(name)
}

func (h *helm3) uninstall(name string, keepHistory bool) error {
	cfg, err := h.config()
	if err != nil {
		return err
	}
	u := action.NewUninstall(cfg)
	u.KeepHistory = keepHistory
	u.Timeout = defaultTimeout
	u.DeletionPropagation = "background" // helm uninstall's --cascade default
	_, err = u.Run(name)
	return err
}

func (h *helm3) status(key string) (string, string, error) {
	rls, err := h.drv.Get(key)
	if err != nil {
		return "", "", err
	}
	if rls.Info == nil {
		return "", "", nil
	}
	return rls.Info.Status.String(), rls.Info.Description, nil
}

func (h *helm3) setStatus(key, status, description string, stamp bool) error {
	rls, err := h.drv.Get(key)
	if err != nil {
		return err
	}
	if rls.Info == nil {
		rls.Info = &release.Info{}
	}
	rls.Info.Status = release.Status(status)
	rls.Info.Description = description
	if stamp {
		rls.Info.LastDeployed = helmtime.Now()
	}
	return h.drv.Update(key, rls)
}

func (h *helm3) delete(key string) error {
	_, err := h.drv.Delete(key)
	return err
}

func (h *helm3) forceDelete(key string) error {
	err := h.force(key)
	h.t.note("deleted", key, "", err)
	return err
}

// tracked3 is a Helm 3 driver that reports every call to the operation's tracker.
type tracked3 struct {
	driver.Driver
	t *tracker
}

func status3(rls *release.Release) string {
	if rls == nil || rls.Info == nil {
		return ""
	}
	return rls.Info.Status.String()
}

func (d tracked3) Get(key string) (*release.Release, error) {
	rls, err := d.Driver.Get(key)
	d.t.note("", key, "", err)
	return rls, err
}

func (d tracked3) List(filter func(*release.Release) bool) ([]*release.Release, error) {
	rls, err := d.Driver.List(filter)
	d.t.note("", "", "", err)
	return rls, err
}

func (d tracked3) Query(labels map[string]string) ([]*release.Release, error) {
	rls, err := d.Driver.Query(labels)
	d.t.note("", "", "", err)
	return rls, err
}

func (d tracked3) Create(key string, rls *release.Release) error {
	err := d.Driver.Create(key, rls)
	d.t.note("created", key, status3(rls), err)
	return err
}

func (d tracked3) Update(key string, rls *release.Release) error {
	err := d.Driver.Update(key, rls)
	d.t.note("updated", key, status3(rls), err)
	return err
}

func (d tracked3) Delete(key string) (*release.Release, error) {
	rls, err := d.Driver.Delete(key)
	d.t.note("deleted", key, "", err)
	return rls, err
}
