package cli_test

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/cli/output"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/cli"
)

// TestGetMetadataAsHelm: get metadata NAME prints what Helm's own get metadata
// action reports of the same release, read through Helm's Secrets driver and
// through the chunked one: -o json byte for byte as Helm encodes it, -o yaml
// to the same fields, and the table's NAME: value lines with the annotations and
// dependencies as helm sorts them.
func TestGetMetadataAsHelm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for name, d := range map[string]driver.Driver{
		"meta-helm":    driver.NewSecrets(cluster.Client.CoreV1().Secrets(e.ns)),
		"meta-chunked": driverFor(byChunkview, e.ns),
	} {
		cfg := e.actionConfigIn(d, e.ns)
		ch := testChart()
		ch.Metadata.Annotations = map[string]string{"team": "payments", "category": "web"}
		ch.Metadata.Dependencies = []*chart.Dependency{{Name: "zeta", Version: "1.0.0"}, {Name: "alpha", Version: "2.0.0"}}
		in := action.NewInstall(cfg)
		in.ReleaseName, in.Namespace = name, e.ns
		if _, err := in.Run(ch, valuesFor(name, 1)); err != nil {
			t.Fatal(err)
		}
		want, err := action.NewGetMetadata(cfg).Run(name)
		if err != nil {
			t.Fatal(err)
		}
		var js strings.Builder
		if err := output.EncodeJSON(&js, want); err != nil {
			t.Fatal(err)
		}
		r := e.run("get", "metadata", name, "-o", "json")
		mustCode(t, r, cli.ExitOK)
		if r.stdout != js.String() {
			t.Errorf("%s: get metadata -o json:\n%s\nwant Helm's:\n%s", name, r.stdout, js.String())
		}
		var yml strings.Builder
		if err := output.EncodeYAML(&yml, want); err != nil {
			t.Fatal(err)
		}
		r = e.run("get", "metadata", name, "-o", "yaml")
		mustCode(t, r, cli.ExitOK)
		if r.stdout != yml.String() {
			t.Errorf("%s: get metadata -o yaml:\n%s\nwant Helm's:\n%s", name, r.stdout, yml.String())
		}
		r = e.run("get", "metadata", name)
		mustCode(t, r, cli.ExitOK)
		for _, line := range []string{"NAME: " + name, "CHART: greeter", "VERSION: " + want.Version, "ANNOTATIONS: category=web,team=payments",
			"DEPENDENCIES: alpha,zeta", "NAMESPACE: " + e.ns, "REVISION: 1", "STATUS: deployed", "DEPLOYED_AT: " + want.DeployedAt} {
			if !strings.Contains(r.stdout, line+"\n") {
				t.Errorf("%s: get metadata lacks %q:\n%s", name, line, r.stdout)
			}
		}
	}
}
