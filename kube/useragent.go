package kube

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// UserAgent is the User-Agent header of every request chunkview sends, its own and
// those of the Helm actions it runs: "chunkview/VERSION (GOOS/GOARCH)", VERSION
// being the module version the binary was built as ("devel" in a checkout). An
// audit log then tells chunkview's writes from Helm's, kubectl's or a
// controller's, where client-go's clients built for a REST mapping (Helm's
// applies among them) would otherwise send Go's default, Go-http-client. The API
// server also names the field manager of a write that names none after it (the
// part before the slash): chunkview.
func UserAgent() string {
	v := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		v = info.Main.Version
	}
	return userAgent(v)
}

// userAgent is UserAgent for a module version: a version Go could not tell
// ("(devel)", "") reads "devel", which a product token may hold.
func userAgent(version string) string {
	if version == "" || strings.ContainsAny(version, "() /") {
		version = "devel"
	}
	return "chunkview/" + version + " (" + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
