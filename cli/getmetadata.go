package cli

import (
	"fmt"
	"io"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/cli/output"
	"helm.sh/helm/v3/pkg/release"
	"k8s.io/apimachinery/pkg/labels"
)

// getMetadata is `get metadata`: helm get metadata's fields of a revision.
const getMetadata getPart = "metadata"

// releaseMetadata is what helm get metadata reports of rls, in Helm's own type,
// so that its JSON and YAML field names and order are Helm's.
func releaseMetadata(rls *release.Release) *action.Metadata {
	m := &action.Metadata{Name: rls.Name, Namespace: rls.Namespace, Revision: rls.Version}
	if rls.Chart != nil && rls.Chart.Metadata != nil {
		md := rls.Chart.Metadata
		m.Chart, m.Version, m.AppVersion = md.Name, md.Version, md.AppVersion
		m.Annotations, m.Dependencies = md.Annotations, md.Dependencies
	}
	if rls.Info != nil {
		m.Status = rls.Info.Status.String()
		m.DeployedAt = rls.Info.LastDeployed.Format(time.RFC3339)
	}
	return m
}

// printMetadata writes m as helm get metadata does in format: its table of
// NAME: value lines (annotations as k=v pairs sorted by key, dependencies'
// names sorted and comma-separated), one line of JSON, or YAML, through Helm's
// own encoders.
func printMetadata(w io.Writer, format string, m *action.Metadata) error {
	switch format {
	case FormatJSON:
		return output.EncodeJSON(w, m)
	case FormatYAML:
		return output.EncodeYAML(w, m)
	}
	_, err := fmt.Fprintf(w, "NAME: %s\nCHART: %s\nVERSION: %s\nAPP_VERSION: %s\nANNOTATIONS: %s\nDEPENDENCIES: %s\nNAMESPACE: %s\nREVISION: %d\nSTATUS: %s\nDEPLOYED_AT: %s\n",
		m.Name, m.Chart, m.Version, m.AppVersion, labels.Set(m.Annotations).String(), m.FormattedDepNames(),
		m.Namespace, m.Revision, m.Status, m.DeployedAt)
	return err
}
