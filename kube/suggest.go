package kube

import (
	"slices"
	"strings"
)

// Suggest returns the command line of a chunkview command the tool advises, for
// release name (none when empty), that works when pasted: it carries the flags
// that found the release here (--context when not the current one, --profile,
// -n, --storage-namespace, --owner, --driver when the stores were narrowed) after
// verb, name and args.
func (c *Client) Suggest(verb, name string, args ...string) string {
	parts := []string{"chunkview"}
	if c.cfg.Demo {
		parts = append(parts, "--demo")
	}
	parts = append(parts, verb)
	if name != "" {
		parts = append(parts, quoteArg(name))
	}
	for _, a := range args {
		parts = append(parts, quoteArg(a))
	}
	cfg := c.cfg
	if cfg.Context != "" {
		parts = append(parts, "--context", quoteArg(cfg.Context))
	}
	p, known := Profiles[cfg.Profile]
	if cfg.Profile != "" && cfg.Profile != "default" && known {
		parts = append(parts, "--profile", cfg.Profile)
	}
	switch {
	case cfg.Namespace != "" && !cfg.AllNamespaces:
		parts = append(parts, "-n", quoteArg(cfg.Namespace))
	case cfg.AllNamespaces && name == "":
		parts = append(parts, "-A")
	}
	if cfg.StorageNamespace != "" && cfg.StorageNamespace != p.StorageNamespace {
		parts = append(parts, "--storage-namespace", quoteArg(cfg.StorageNamespace))
	}
	if cfg.Owner != "" && cfg.Owner != p.Owner && !(p.Owner == "" && cfg.Owner == DefaultOwner) {
		parts = append(parts, "--owner", quoteArg(cfg.Owner))
	}
	if cfg.DriversFrom != "" && len(cfg.Drivers) > 0 && len(cfg.Drivers) < len(AllDrivers) && !strings.HasPrefix(cfg.DriversFrom, "--owner") {
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
