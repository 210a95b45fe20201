package kube

import (
	"slices"
	"strings"

	"github.com/chunkview/chunkview/storage"
)

// Suggest returns the command line of a chunkview command the tool advises, for
// release name (none when empty), that works when pasted: it carries the flags
// that found the release here (--context when not the current one, --profile,
// -n, --storage-namespace, --owner, --driver when the stores were narrowed) after
// verb, name and args.
func (cfg Config) Suggest(verb, name string, args ...string) string {
	ns := cfg.Namespace
	if cfg.AllNamespaces {
		ns = ""
	}
	return suggest(cfg, ns, "", verb, name, args...)
}

// SuggestFor is Suggest for the release whose revision row is: its own namespace
// (-n), and its store (--driver) when the connection reads more than one, so that
// the command finds that release and no other.
func (cfg Config) SuggestFor(row RevisionRow, verb string, args ...string) string {
	ns := row.StorageNamespace
	if s := row.Summary.Namespace; row.Known && s != "" && !row.NamespaceUnknown {
		ns = s
	}
	if cfg.StorageNamespace != "" && ns == row.StorageNamespace {
		// Records kept apart from the release (OLMv1): its namespace is not
		// known here, and the storage namespace is not it.
		ns = ""
	}
	d := ""
	if len(cfg.drivers()) > 1 {
		d = row.driver()
	}
	return suggest(cfg, ns, d, verb, row.Name, args...)
}

func suggest(cfg Config, ns, driver, verb, name string, args ...string) string {
	parts := []string{"chunkview"}
	if cfg.Demo {
		parts = append(parts, "--demo")
	}
	parts = append(parts, verb)
	if name != "" {
		parts = append(parts, quoteArg(name))
	}
	for _, a := range args {
		parts = append(parts, quoteArg(a))
	}
	if cfg.Context != "" {
		parts = append(parts, "--context", quoteArg(cfg.Context))
	}
	p, known := Profiles[cfg.Profile]
	if cfg.Profile != "" && cfg.Profile != "default" && known {
		parts = append(parts, "--profile", cfg.Profile)
	}
	switch {
	case ns != "":
		parts = append(parts, "-n", quoteArg(ns))
	case cfg.AllNamespaces:
		parts = append(parts, "-A")
	}
	if cfg.StorageNamespace != "" && cfg.StorageNamespace != p.StorageNamespace {
		parts = append(parts, "--storage-namespace", quoteArg(cfg.StorageNamespace))
	}
	if cfg.Owner != "" && cfg.Owner != p.Owner && !(p.Owner == "" && cfg.Owner == storage.HelmOwner) {
		parts = append(parts, "--owner", quoteArg(cfg.Owner))
	}
	switch {
	case driver != "":
		parts = append(parts, "--driver", driver)
	case cfg.DriversFrom != "" && len(cfg.Drivers) > 0 && len(cfg.Drivers) < len(AllDrivers) && !strings.HasPrefix(cfg.DriversFrom, "--owner") && !strings.HasPrefix(cfg.DriversFrom, "HELM_DRIVER"):
		parts = append(parts, "--driver", strings.Join(slices.Clone(cfg.Drivers), ","))
	}
	return strings.Join(parts, " ")
}

// quoteArg quotes a shell word that needs it.
func quoteArg(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
