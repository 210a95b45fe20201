package storage

// TEMPORARY stub (not committed): replaced by the helmrecord branch.

import "helm.sh/helm/v3/pkg/release"

type HelmRecord struct {
	Release       *release.Release
	ApplyMethod   string
	UnknownFields []string
	GzipBytes     int
	DecodedBytes  int
}

func DecodeHelmRecord(data []byte, maxDecoded int64) (*HelmRecord, error) { panic("stub") }

func PeekHelmSummary(data []byte) (s Summary, applyMethod string, ok bool) { panic("stub") }

const HelmRecordLimit = MaxSecretDataBytes
