package ops

import (
	"maps"

	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	chunked "github.com/chunkview/chunkview/storage/helm4"
)

// chunked4 returns Helm 4's chunked driver over the plan's storage namespace,
// held to the plan when the operation is, and its delete of a record it cannot
// read. It writes the same format as the Helm 3 driver, with the same
// guarantees; Helm 4's types keep every field Helm 4 wrote.
func chunked4(e helmEnv) (driver4.Driver, func(string) error, error) {
	d := chunked.NewDriver(carrySecrets(e.r.c.Clientset().CoreV1().Secrets(e.p.StorageNamespace), e.carry), e.owner(), e.chunkedConfig()).WithContext(e.ctx)
	if e.pinned {
		d = d.Expect(e.p.Release, maps.Clone(e.p.Records))
	}
	d.SetLogger(e.log.handler())
	return d, d.ForceDelete, nil
}
