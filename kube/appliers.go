package kube

import (
	"io"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	helmkube "helm.sh/helm/v3/pkg/kube"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	kube4 "helm.sh/helm/v4/pkg/kube"
	kubefake4 "helm.sh/helm/v4/pkg/kube/fake"
)

// HelmFieldManager is the field manager Helm's CLIs write managed fields under
// (both set their kube package's ManagedFieldsManager to it). Resources chunkview
// applies through Helm's actions carry the same manager, so that a server-side
// apply neither conflicts with the CLI's own fields nor takes them over.
const HelmFieldManager = "helm"

func init() {
	// Left empty, Helm's kube clients name the manager after the binary
	// ("chunkview"): a server-side rollback would then conflict with "helm" on
	// every field it applies.
	helmkube.ManagedFieldsManager = HelmFieldManager
	kube4.ManagedFieldsManager = HelmFieldManager
}

// Appliers builds the Helm kube clients that apply and delete the resources of a
// release whose resources live in namespace ns: one for Helm 3's actions and one
// for Helm 4's. An operation uses the one of the Helm that runs it.
type Appliers interface {
	Helm3(ns string) (helmkube.Interface, error)
	Helm4(ns string) (kube4.Interface, error)
}

// DiscardKubeClients are Appliers whose clients apply nothing: the demo's, whose
// in-memory cluster holds release records only.
var DiscardKubeClients Appliers = discardAppliers{}

type discardAppliers struct{}

func (discardAppliers) Helm3(string) (helmkube.Interface, error) {
	return &kubefake.PrintingKubeClient{Out: io.Discard}, nil
}

func (discardAppliers) Helm4(string) (kube4.Interface, error) {
	return &kubefake4.PrintingKubeClient{Out: io.Discard, LogOutput: io.Discard}, nil
}

// restAppliers builds Helm's kube clients from the connection flags, as helm's
// CLIs do: every client they make gets chunkview's wrappers (see Options.wrap).
type restAppliers struct {
	getter genericclioptions.RESTClientGetter
}

func (a restAppliers) Helm3(ns string) (helmkube.Interface, error) {
	kc := helmkube.New(a.getter)
	kc.Namespace = ns
	return kc, nil
}

func (a restAppliers) Helm4(ns string) (kube4.Interface, error) {
	kc := kube4.New(a.getter)
	kc.Namespace = ns
	// Helm 4's client logs through slog's default handler unless told
	// otherwise; the operation that uses it sets its own.
	return kc, nil
}

// Appliers returns the connection's builders of Helm kube clients; nil for a
// connection that cannot apply release resources.
func (c *Client) Appliers() Appliers { return c.appliers }

// NewAppliers returns the Appliers that build Helm's kube clients from getter, as
// Options.Connect does from the connection flags.
func NewAppliers(getter genericclioptions.RESTClientGetter) Appliers { return restAppliers{getter} }
