package chunked

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Secret types of the format.
const (
	SecretTypeIndex = corev1.SecretType("operatorframework.io/index.v1")
	SecretTypeChunk = corev1.SecretType("operatorframework.io/chunk.v1")
)

// Data keys and label names of the format.
const (
	DataChunk       = "chunk"
	DataExtraChunks = "extraChunks"

	LabelName       = "name"
	LabelOwner      = "owner"
	LabelStatus     = "status"
	LabelVersion    = "version"
	LabelKey        = "key"
	LabelType       = "type"
	LabelCreatedAt  = "createdAt"
	LabelModifiedAt = "modifiedAt"

	TypeIndex = "index"
	TypeChunk = "chunk"
	// TypePending labels the index Secret of a create in progress, before it holds
	// data: no listing of indexes selects it, and readers treat its key as absent.
	// The create's last step relabels it TypeIndex.
	TypePending = "pending"
)

// MaxSecretDataBytes is the API server's limit on the sum of a Secret's data values.
const MaxSecretDataBytes = 1 << 20

var systemLabels = map[string]bool{
	LabelName: true, LabelOwner: true, LabelStatus: true, LabelVersion: true,
	LabelKey: true, LabelType: true, LabelCreatedAt: true, LabelModifiedAt: true,
}

// IsSystemLabel reports whether k is one of the labels the driver manages on index
// Secrets; all other labels are custom and live only in the payload.
func IsSystemLabel(k string) bool { return systemLabels[k] }

// customLabels returns lbs without system labels, never nil.
func customLabels(lbs map[string]string) map[string]string {
	out := make(map[string]string, len(lbs))
	for k, v := range lbs {
		if !systemLabels[k] {
			out[k] = v
		}
	}
	return out
}

// indexLabels returns the labels of the index Secret of key for the release f
// describes (its status already defaulted, see Core.fields).
func indexLabels(owner, key string, f Fields) map[string]string {
	return map[string]string{
		LabelName:    f.Name,
		LabelOwner:   owner,
		LabelStatus:  f.Status,
		LabelVersion: strconv.Itoa(f.Version),
		LabelKey:     key,
		LabelType:    TypeIndex,
	}
}

func chunkLabels(owner, key string, now time.Time) map[string]string {
	return map[string]string{
		LabelOwner:     owner,
		LabelKey:       key,
		LabelType:      TypeChunk,
		LabelCreatedAt: unixString(now),
	}
}

func unixString(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// IndexSelector selects the index Secrets of owner.
func IndexSelector(owner string) labels.Selector {
	return labels.SelectorFromSet(labels.Set{LabelOwner: owner, LabelType: TypeIndex})
}

// ChunkSelector selects the chunk Secrets of owner; with a key, only that key's.
func ChunkSelector(owner, key string) labels.Selector {
	s := labels.Set{LabelOwner: owner, LabelType: TypeChunk}
	if key != "" {
		s[LabelKey] = key
	}
	return labels.SelectorFromSet(s)
}
