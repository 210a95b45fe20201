package demo

import (
	"syscall"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/chunkview/chunkview/internal/fakeapi"
)

// cpuTime is the CPU the process has used, user and system, every thread and
// the garbage collector included: what `time` reports of a command, which on a
// shared machine says more than the wall clock.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU runs f b.N times and reports its CPU per run as cpu-ms/op.
func reportCPU(b *testing.B, f func()) {
	b.ReportAllocs()
	start := cpuTime(b)
	n := 0
	for b.Loop() {
		f()
		n++
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(n), "cpu-ms/op")
}

// BenchmarkDemoSeed is what every whole-demo command (ls, verify, gc,
// completion) pays before it reads anything: Seed of every sample on a fresh
// in-memory cluster, the live objects held back as the CLI holds them. The
// replay variant sends every write to the drivers as Helm does, each release
// compressed on each of its writes, as Seed did before issue 29's item 16
// (BenchmarkDemoRender has the other half of that change).
func BenchmarkDemoSeed(b *testing.B) {
	for _, bc := range []struct {
		name   string
		replay bool
	}{{"once", false}, {"replay", true}} {
		b.Run(bc.name, func(b *testing.B) {
			reportCPU(b, func() {
				if _, err := Seed(b.Context(), fakeapi.NewCluster(), SeedOptions{Live: NewLive(), replay: bc.replay}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkDemoRender renders every revision of every sample, as Seed does:
// with sortManifests, which sorts the files with their long runs stood in for,
// and with Helm's SortManifests on the files as they are.
func BenchmarkDemoRender(b *testing.B) {
	type job struct {
		s  sample
		st step
		v  int
	}
	var jobs []job
	for _, s := range samples() {
		for i, st := range s.steps {
			if st.op != opRollback {
				jobs = append(jobs, job{s, st, i + 1})
			}
		}
	}
	for _, bc := range []struct {
		name string
		sort sorter
	}{{"stand-ins", sortManifests}, {"helm", helmSort}} {
		b.Run(bc.name, func(b *testing.B) {
			reportCPU(b, func() {
				for _, j := range jobs {
					ch, err := j.s.chart(j.st.chart).build()
					if err != nil {
						b.Fatal(err)
					}
					vals, err := chartutil.ReadValues([]byte(j.st.values))
					if err != nil {
						b.Fatal(err)
					}
					ro := chartutil.ReleaseOptions{Name: j.s.name, Namespace: j.s.namespace, Revision: j.v, IsInstall: j.st.op == opInstall, IsUpgrade: j.st.op == opUpgrade}
					if _, _, _, err := renderWith(ch, vals, ro, bc.sort); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
