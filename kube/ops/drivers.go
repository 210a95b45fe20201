package ops

import (
	"context"
	"errors"
	"maps"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// The records under an operation, whichever Helm runs it. Helm's own Secrets and
// ConfigMaps drivers write unconditionally, so they are given clients held to the
// plan (pins, see pins.go); the chunked driver holds itself to it (Expect). Either
// way a read that finds the release moved on, and a write over a record that
// changed since the plan, fail with an error wrapping storage.ErrConflict.

// helmEnv is what building either Helm needs.
type helmEnv struct {
	ctx    context.Context
	r      *Runner
	p      *Plan
	pinned bool
	// resNS is the namespace the release's resources live in.
	resNS string
	log   *helmLog
	// carry keeps other writers' metadata on the records the drivers write
	// (see carrier).
	carry *carrier
}

// pins returns the pins of the plan's records for an operation's driver, nil for
// one that is not held to the plan.
func (e helmEnv) pins() *pins {
	if !e.pinned {
		return nil
	}
	return newPins(e.p.Release, e.p.Records)
}

// secrets returns the Secrets client of the plan's storage namespace, held to pn
// when set.
func (e helmEnv) secrets(pn *pins) corev1client.SecretInterface {
	s := carrySecrets(e.r.c.Clientset().CoreV1().Secrets(e.p.StorageNamespace), e.carry)
	if pn != nil {
		return pinSecrets(s, pn)
	}
	return s
}

// configMaps returns the ConfigMaps client of the plan's storage namespace, held
// to pn when set.
func (e helmEnv) configMaps(pn *pins) corev1client.ConfigMapInterface {
	c := e.r.c.Clientset().CoreV1().ConfigMaps(e.p.StorageNamespace)
	if pn != nil {
		return pinConfigMaps(c, pn)
	}
	return c
}

// chunked returns the v3 chunked driver over the plan's storage namespace, held
// to the plan when the operation is.
func (e helmEnv) chunked() *storage.ChunkedSecrets {
	c := e.r.c
	sns := c.Config().StorageNamespaceFor(kube.DriverChunked, e.p.StorageNamespace)
	d := storage.NewDriver(carrySecrets(c.Clientset().CoreV1().Secrets(sns), e.carry), c.Config().Owner, kube.ChunkedConfig(c.Config().Driver, c.Metadata(), sns)).WithContext(e.ctx)
	if e.pinned {
		d = d.Expect(e.p.Release, maps.Clone(e.p.Records))
	}
	return d
}

// chunkedConfig returns the chunked driver's configuration for the plan's
// storage namespace.
func (e helmEnv) chunkedConfig() storage.ChunkedSecretsConfig {
	return kube.ChunkedConfig(e.r.c.Config().Driver, e.r.c.Metadata(), e.p.StorageNamespace)
}

// owner is the owner label of chunked records.
func (e helmEnv) owner() string { return e.r.c.Config().Owner }

// helmStoreDeleter returns the delete of one of Helm's own records that does not
// decode it first (for a record that cannot be read), through the plan's
// (pinned) client: a record rewritten since the plan is a conflict, not deleted.
// notFound is the driver's own "no such record", which Helm compares by identity.
func (e helmEnv) helmStoreDeleter(pn *pins, notFound error) func(key string) error {
	var del func(ctx context.Context, name string, opts metav1.DeleteOptions) error
	if e.p.Driver == kube.DriverConfigMap {
		del = e.configMaps(pn).Delete
	} else {
		del = e.secrets(pn).Delete
	}
	return func(key string) error {
		err := del(e.ctx, key, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return notFound
		}
		return err
	}
}

// errNoAppliers is the error of an operation that must apply or delete resources
// on a connection that cannot.
var errNoAppliers = errors.New("this connection cannot apply release resources")
