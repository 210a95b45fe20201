package demo

import (
	"io"

	helmkube "helm.sh/helm/v3/pkg/kube"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	kube4 "helm.sh/helm/v4/pkg/kube"
	kubefake4 "helm.sh/helm/v4/pkg/kube/fake"
)

// DiscardKubeClients builds Helm kube clients that apply nothing (Helm's own
// printing fakes, printing nowhere): the demo's in-memory cluster holds release
// records only. It is a kube/ops Appliers, handed to kube.New as the client's
// apply source.
var DiscardKubeClients discardAppliers

type discardAppliers struct{}

// Helm3 returns Helm 3's printing fake, for Helm 3's actions.
func (discardAppliers) Helm3(string) (helmkube.Interface, error) {
	return &kubefake.PrintingKubeClient{Out: io.Discard}, nil
}

// Helm4 returns Helm 4's printing fake, for Helm 4's actions.
func (discardAppliers) Helm4(string) (kube4.Interface, error) {
	return &kubefake4.PrintingKubeClient{Out: io.Discard, LogOutput: io.Discard}, nil
}
