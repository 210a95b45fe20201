package ops

import corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

// Pins is pins for the tests in package kube_test, which hold the test cluster.
type Pins = pins

// NewPins is newPins.
func NewPins(release string, records map[string]string) *Pins { return newPins(release, records) }

// PinSecrets is pinSecrets.
func PinSecrets(impl corev1client.SecretInterface, p *Pins) corev1client.SecretInterface {
	return pinSecrets(impl, p)
}

// PinConfigMaps is pinConfigMaps.
func PinConfigMaps(impl corev1client.ConfigMapInterface, p *Pins) corev1client.ConfigMapInterface {
	return pinConfigMaps(impl, p)
}

// Conflicted is conflicted.
func (p *pins) Conflicted() bool { return p.conflicted() }

// Written is written.
func (p *pins) Written() []string { return p.written() }
