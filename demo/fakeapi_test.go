package demo

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/chunkview/chunkview/internal/fakeapi"
)

// Names the demo's tests used when the API server lived in this package.
var (
	secretsGVR    = corev1.SchemeGroupVersion.WithResource("secrets")
	configMapsGVR = corev1.SchemeGroupVersion.WithResource("configmaps")
)

// MaxSecretBytes is the API server's limit on a Secret's data (fakeapi's).
const MaxSecretBytes = fakeapi.MaxSecretBytes
