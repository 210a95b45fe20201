package main

import (
	"sync/atomic"
	"time"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
)

type secretsClient = corev1client.SecretInterface

// driverCPU adds up the process CPU time spent inside driver calls: the storage's
// share of a reconcile (Helm's calls are sequential, so what the process spends
// while one runs is the driver's, but for the collections of garbage others made).
type driverCPU struct{ ns atomic.Int64 }

func (d *driverCPU) load() time.Duration { return time.Duration(d.ns.Load()) }

func (d *driverCPU) since(t0 time.Duration) { d.ns.Add(int64(processCPU() - t0)) }

// timedDriver is a driver whose calls are timed into cpu.
type timedDriver struct {
	driver.Driver
	cpu *driverCPU
}

func (t *timedDriver) Create(key string, rls *release.Release) error {
	defer t.cpu.since(processCPU())
	return t.Driver.Create(key, rls)
}

func (t *timedDriver) Update(key string, rls *release.Release) error {
	defer t.cpu.since(processCPU())
	return t.Driver.Update(key, rls)
}

func (t *timedDriver) Delete(key string) (*release.Release, error) {
	defer t.cpu.since(processCPU())
	return t.Driver.Delete(key)
}

func (t *timedDriver) Get(key string) (*release.Release, error) {
	defer t.cpu.since(processCPU())
	return t.Driver.Get(key)
}

func (t *timedDriver) List(filter func(*release.Release) bool) ([]*release.Release, error) {
	defer t.cpu.since(processCPU())
	return t.Driver.List(filter)
}

func (t *timedDriver) Query(labels map[string]string) ([]*release.Release, error) {
	defer t.cpu.since(processCPU())
	return t.Driver.Query(labels)
}
