package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// BuildVersion is what `chunkview version` and --version print, read from the
// binary's build information: the module version (a tag when installed with go
// install, "(devel)" when built in a checkout), the commit it was built from and
// the Go release.
type BuildVersion struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
}

// buildVersion reads the version from info; nil info (no build information, as in
// some test binaries) reports "unknown".
func buildVersion(info *debug.BuildInfo) BuildVersion {
	v := BuildVersion{Version: "unknown", Commit: "unknown", GoVersion: runtime.Version()}
	if info == nil {
		return v
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	if info.GoVersion != "" {
		v.GoVersion = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func currentVersion() BuildVersion {
	info, _ := debug.ReadBuildInfo()
	return buildVersion(info)
}

// String is the one line --version prints.
func (v BuildVersion) String() string {
	commit := v.Commit
	if v.Modified {
		commit += " (modified)"
	}
	return fmt.Sprintf("chunkview %s, commit %s, %s", v.Version, commit, v.GoVersion)
}

// versionOptions are the flags of `version`, in kubectl's shape.
type versionOptions struct{ format string }

// Complete has nothing to fill in: version takes no arguments.
func (o *versionOptions) Complete([]string) error { return nil }

// Validate checks -o.
func (o *versionOptions) Validate() error { return checkFormat(o.format) }

// Run prints the version; it needs no cluster.
func (o *versionOptions) Run(_ context.Context, r *run) error {
	v := currentVersion()
	if o.format != FormatTable {
		return printStructured(r.stdout, o.format, v)
	}
	_, err := fmt.Fprintln(r.stdout, v)
	return err
}

func (r *run) versionCommand() *cobra.Command {
	o := &versionOptions{}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print chunkview's version, the commit it was built from and the Go version",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	return cmd
}
