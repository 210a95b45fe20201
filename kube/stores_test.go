package kube_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/kube"
)

func TestParseDrivers(t *testing.T) {
	all := []string{"chunked", "secret", "configmap"}
	for _, tc := range []struct {
		name    string
		flags   []string
		env     string
		want    []string
		wantErr string
	}{
		{"nothing set: every store", nil, "", all, ""},
		{"one flag", []string{"secret"}, "", []string{"secret"}, ""},
		{"comma-separated, listing order", []string{"configmap,chunked"}, "", []string{"chunked", "configmap"}, ""},
		{"repeated, plurals, repeats", []string{"secrets", "ConfigMaps", "secret"}, "", []string{"secret", "configmap"}, ""},
		{"HELM_DRIVER as Helm reads it", nil, "configmaps", []string{"configmap"}, ""},
		{"the flag wins over HELM_DRIVER", []string{"chunked"}, "secret", []string{"chunked"}, ""},
		{"Helm's memory driver", nil, "memory", nil, `HELM_DRIVER "memory"`},
		{"Helm's sql driver", []string{"sql"}, "", nil, `--driver "sql"`},
		{"unknown", []string{"etcd"}, "", nil, "unknown store"},
		{"empty values are ignored", []string{" , "}, "", all, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kube.ParseDrivers(tc.flags, tc.env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestRowFill(t *testing.T) {
	r := kube.RevisionRow{Known: true, LimitBytes: 1 << 20}
	r.Summary.StoredBytes = 943_718
	if f := r.Fill(); f < 0.899 || f > 0.901 {
		t.Fatalf("fill %v, want 0.9", f)
	}
	r.LimitBytes = 0
	if f := r.Fill(); f != 0 {
		t.Fatalf("fill without a limit = %v, want 0", f)
	}
	r.LimitBytes, r.Known = 1<<20, false
	if f := r.Fill(); f != 0 {
		t.Fatalf("fill of an unknown size = %v, want 0", f)
	}
}
