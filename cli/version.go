package cli

import (
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

func (r *run) versionCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print chunkview's version, the commit it was built from and the Go version",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			v := currentVersion()
			if format != FormatTable {
				return printStructured(r.stdout, format, v)
			}
			_, err := fmt.Fprintln(r.stdout, v)
			return err
		},
	}
	addOutputFlag(cmd, &format)
	return cmd
}
