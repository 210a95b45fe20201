// Package owner reads what reconciles a Helm release besides Helm: Flux's
// HelmReleases and OLMv1's ClusterExtensions (with the ClusterObjectSets its
// newer runtime keeps revisions in). A listing reads them all at once (Read) and
// attaches each to its rows; an operation about to change a release reads its
// one controller (Of) and refuses while it is active; the history of an OLMv1
// release shows what the extension says (Extension).
//
// It reads through the connection's dynamic and metadata clients, after a
// discovery of which of the controllers' APIs are served: a cluster without
// them costs one discovery request. The values it returns, kube.Controller and
// kube.ClusterExtension, are kube's, since a revision row carries them.
package owner
