package badinput_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/chunkview/chunkview/internal/badinput"
)

var update = flag.Bool("update-badinput", false, "rewrite the corpus in storage/testdata/badinput")

// TestCorpusUpToDate checks that the corpus files are what Generate writes, and
// rewrites them with -update-badinput.
func TestCorpusUpToDate(t *testing.T) {
	if *update {
		if err := badinput.Generate(badinput.Dir()); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := badinput.Generate(dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range badinput.Cases() {
		want, err := os.ReadFile(filepath.Join(dir, c.Name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(c.File())
		if err != nil {
			t.Fatalf("%v: run go test ./internal/badinput -update-badinput", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what Generate writes: run go test ./internal/badinput -update-badinput", c.File())
		}
		secs, err := badinput.Load(c)
		if err != nil || len(secs) == 0 {
			t.Errorf("%s: %d Secrets, %v", c.Name, len(secs), err)
		}
	}
}
