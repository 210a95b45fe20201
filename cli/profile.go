package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// CPUProfileEnv and MemProfileEnv name the environment variables that make
// chunkview write a CPU profile of its whole run, and a heap profile (allocations
// and what was in use at exit), to the files they name, for `go tool pprof`. They
// are for the benchmarks (hack/bench), like StatsEnv, not user-facing options.
const (
	CPUProfileEnv = "CHUNKVIEW_CPUPROFILE"
	MemProfileEnv = "CHUNKVIEW_MEMPROFILE"
)

// StartProfiles starts what CPUProfileEnv and MemProfileEnv ask for and returns
// the function that finishes them, to call before exiting. A profile that cannot
// be written is reported on stderr and does not stop chunkview.
func StartProfiles(stderr io.Writer) (stop func()) {
	var stops []func()
	if path := os.Getenv(CPUProfileEnv); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "Warning: %s: %v\n", CPUProfileEnv, err)
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); _ = f.Close() })
		}
	}
	if path := os.Getenv(MemProfileEnv); path != "" {
		runtime.MemProfileRate = 64 << 10
		stops = append(stops, func() {
			f, err := os.Create(path)
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
