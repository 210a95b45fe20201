package owner

import (
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/chunkview/chunkview/kube"
)

// Source is what owner reads the controllers through: a *kube.Client's
// discovery (the clientset), its dynamic client (nil reads nothing), its
// metadata client and its configuration. It is declared here, with only the
// methods owner calls.
type Source interface {
	Clientset() kubernetes.Interface
	Dynamic() dynamic.Interface
	Metadata() metadata.Interface
	Config() kube.Config
}

var _ Source = (*kube.Client)(nil)

// discoveryOf is the discovery c reads through: kube.Client.Discovery, which
// answers from the pass ServedAPIs made when one was, else c's clientset's.
func discoveryOf(c Source) discovery.DiscoveryInterface {
	if d, ok := c.(interface {
		Discovery() discovery.DiscoveryInterface
	}); ok {
		return d.Discovery()
	}
	return c.Clientset().Discovery()
}
