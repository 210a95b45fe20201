package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/revdiff"
)

// TestMaskedTokensStableAcrossRuns: masked values get the same token in two runs
// (each with a fresh process key, as two processes have) once the key is loaded
// from the configuration directory, so masked dumps compare from one day to the
// next; another directory, or another passphrase, gives other tokens. Not
// parallel: the mask key is the process's.
func TestMaskedTokensStableAcrossRuns(t *testing.T) {
	defer revdiff.SetMaskKey(nil)
	noEnv := func(string) string { return "" }
	dirA, dirB := t.TempDir(), t.TempDir()
	dump := func(getenv func(string) string, dir string) string {
		t.Helper()
		revdiff.SetMaskKey(nil) // a new process
		key, err := cli.LoadMaskKey(getenv, func() (string, error) { return dir, nil })
		if err != nil {
			t.Fatal(err)
		}
		revdiff.SetMaskKey(key)
		r := runDemo(t, &cli.App{}, "get", "values", "payments-api")
		mustCode(t, r, cli.ExitOK)
		return r.stdout
	}
	tokens := regexp.MustCompile(`<masked:[0-9a-f]+>`)
	first := dump(noEnv, dirA)
	if len(tokens.FindAllString(first, -1)) < 2 {
		t.Fatalf("no masked values to compare:\n%s", first)
	}
	if again := dump(noEnv, dirA); again != first {
		t.Errorf("two runs with one key file masked differently:\n%s\n---\n%s", first, again)
	}
	fi, err := os.Stat(filepath.Join(dirA, "chunkview", "mask-key"))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 32 {
		t.Errorf("the key file: %v, %v", fi, err)
	}
	if other := dump(noEnv, dirB); other == first {
		t.Error("another key file gave the same tokens")
	}
	team := func(k string) string {
		if k == cli.MaskKeyEnv {
			return "our team's passphrase"
		}
		return ""
	}
	shared := dump(team, dirA)
	if shared == first || dump(team, dirB) != shared {
		t.Error("the passphrase is not what the tokens come from")
	}
	if _, err := os.Stat(filepath.Join(dirB, "chunkview", "mask-key")); err != nil {
		t.Errorf("dirB's own key file: %v", err)
	}
	// Without a place to keep the key, loading fails and the caller keeps the
	// process's own.
	if _, err := cli.LoadMaskKey(noEnv, func() (string, error) { return "/proc/nope", nil }); err == nil {
		t.Error("a key could be kept under /proc")
	}
}
