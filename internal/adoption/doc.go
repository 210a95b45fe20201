// Package adoption runs chunkview's driver the way an operator built on
// helm-operator-plugins adopts it, wired as OLMv1's operator-controller wires its
// own: helm-operator-plugins' ActionClientGetter, given the driver through its
// StorageDriverMapper option; a fresh driver per action client, whose Secret client
// is helm-operator-plugins' OwnerRefSecretClient (which puts the reconciled
// object's controller reference on index Secrets) over a delegating client that
// reads through a controller-runtime client.Reader (the manager's API reader, or a
// started cache) and writes through client-go's typed client.
//
// Its tests run a release's whole life through that wiring on a real API server
// (install, the steady-state reconcile, upgrade, rollback, uninstall), count the
// requests of each step, and hold chunkview to what helm-operator-plugins' own
// driver writes and reads; then the steady-state reconcile over a started
// controller-runtime cache and over chunkview's cached read path, which send no
// request on Secrets. hack/bench's -reconcile mode measures the same reconcile
// over an OLMv1-shaped fleet.
package adoption
