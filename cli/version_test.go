package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	cases := []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "chunkview unknown, commit unknown, " + runtime.Version()},
		{&debug.BuildInfo{GoVersion: "go1.26.7", Main: debug.Module{Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}}, "chunkview v1.2.3, commit abc123, go1.26.7"},
		{&debug.BuildInfo{GoVersion: "go1.26.7", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}, "chunkview (devel), commit abc123 (modified), go1.26.7"},
	}
	for _, c := range cases {
		if got := buildVersion(c.info).String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
