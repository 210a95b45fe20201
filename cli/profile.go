package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
)

// CPUProfileEnv and MemProfileEnv name the environment variables that make
// chunkview profile its whole run, for `go tool pprof`: each names a path prefix,
// and the profile goes to PREFIX.chunkview-COMMAND.PID.prof (CPU) or
// PREFIX.chunkview-COMMAND.PID.allocs (allocations, and what was in use at exit),
// one file per process, as hack/bench's TUI child names its own. They are for the
// benchmarks (hack/bench), like StatsEnv, not user-facing options.
const (
	CPUProfileEnv = "CHUNKVIEW_CPUPROFILE"
	MemProfileEnv = "CHUNKVIEW_MEMPROFILE"
)

// StartProfiles starts what CPUProfileEnv and MemProfileEnv ask for in a run with
// arguments args, and returns the function that finishes them, to call before
// exiting. A profile that cannot be written is reported on stderr and does not
// stop chunkview.
func StartProfiles(args []string, stderr io.Writer) (stop func()) {
	name := "chunkview"
	if len(args) > 0 && args[0] != "" && !strings.HasPrefix(args[0], "-") {
		name += "-" + args[0]
	}
	path := func(prefix, ext string) string { return fmt.Sprintf("%s.%s.%d.%s", prefix, name, os.Getpid(), ext) }
	var stops []func()
	if prefix := os.Getenv(CPUProfileEnv); prefix != "" {
		f, err := os.Create(path(prefix, "prof"))
		if err == nil {
			if err = pprof.StartCPUProfile(f); err != nil {
				_ = f.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "Warning: %s: %v\n", CPUProfileEnv, err)
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); _ = f.Close() })
		}
	}
	if prefix := os.Getenv(MemProfileEnv); prefix != "" {
		runtime.MemProfileRate = 64 << 10
		stops = append(stops, func() {
			f, err := os.Create(path(prefix, "allocs"))
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				_ = f.Close()
			}
			if err != nil {
				fmt.Fprintf(stderr, "Warning: %s: %v\n", MemProfileEnv, err)
			}
		})
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
