package cli_test

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/storage/driver"
)

// TestLsHistoryBytes: ls says what each release's stored revisions take, from
// what the listing reads anyway: every revision of a release chunkview wrote
// (its index summaries), the revisions of a Helm Secrets release that are not
// superseded (their records, read whole), and nothing of a multi-chunk release
// helm-operator-plugins wrote (its index Secrets carry no size). The sums are
// held to the bytes the Secrets hold; -o wide marks a partial sum with "≥" and
// an unknown one with "?".
func TestLsHistoryBytes(t *testing.T) {
	e := newEnv(t)
	e.install(byChunkview, "own", 3)
	e.install(byPlugins, "orig", 3)
	e.installWith(e.actionConfigIn(driver.NewSecrets(cluster.Client.CoreV1().Secrets(e.ns)), e.ns), e.ns, "helm secrets", "hs", 3)
	got, reqs := e.lsJSON()
	t.Logf("ls -o json: %d requests", reqs)

	var own int64
	for rev := 1; rev <= 3; rev++ {
		n, _ := e.chunkedBytes("own", rev)
		own += n
	}
	if it := got["own"]; it.Revisions != 3 || it.HistorySized != 3 || it.HistoryBytes != own {
		t.Errorf("own: want 3 revisions, all sized, %d bytes; got %d revisions, %d sized, %d bytes", own, it.Revisions, it.HistorySized, it.HistoryBytes)
	}
	if it := got["orig"]; it.Revisions != 3 || it.HistorySized != 0 || it.HistoryBytes != 0 {
		t.Errorf("orig: want 3 revisions, none sized; got %d revisions, %d sized, %d bytes", it.Revisions, it.HistorySized, it.HistoryBytes)
	}
	latest := e.helmSecretBytes("hs", 3)
	if it := got["hs"]; it.Revisions != 3 || it.HistorySized != 1 || it.HistoryBytes != latest {
		t.Errorf("hs: want 3 revisions, the deployed one sized, %d bytes; got %d revisions, %d sized, %d bytes", latest, it.Revisions, it.HistorySized, it.HistoryBytes)
	}

	r := e.run("ls", "-o", "wide")
	mustCode(t, r, 0)
	cols := map[string]string{}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	at := strings.Index(lines[0], "HISTORY")
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		cols[f[0]] = strings.Fields(line[at:])[0]
	}
	if cols["orig"] != "?" || !strings.HasPrefix(cols["hs"], "≥") || strings.HasPrefix(cols["own"], "≥") || cols["own"] == "?" {
		t.Errorf("HISTORY: want own exact, hs a lower bound, orig unknown; got %v\n%s", cols, r.stdout)
	}
}
