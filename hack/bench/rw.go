package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// Reading and writing one large revision, chunkview's driver against
// helm-operator-plugins', in this process: each driver on a connection of its own
// that counts requests and bytes.

const (
	rwNamespaceCV  = "bench-rw-chunkview"
	rwNamespaceHop = "bench-rw-original"
	rwOwner        = "bench-rw"
	rwChunks       = 8
)

// opSummary is the median of several runs of one driver operation.
type opSummary struct {
	Label    string
	Runs     int
	Wall     time.Duration // median
	Requests float64       // per operation
	Bytes    float64       // response bytes per operation
	Alloc    float64       // bytes allocated per operation in this process
	WallMin  time.Duration
	// CPU per operation: this process, the API server and etcd (zero when the
	// cluster was not started by the harness).
	CPU cpuTimes
}

type rwResult struct {
	Chunks    int
	GzipBytes int
	Get       [2]opSummary // chunkview, original; of a record chunkview wrote
	// GetOrig is Get of a record the original driver wrote, which carries none of
	// chunkview's annotations (its size hint among them).
	GetOrig [2]opSummary
	Create  [2]opSummary
	Update  [2]opSummary
	// GetRatios, GetOrigRatios, CreateRatios and UpdateRatios are chunkview's time
	// over the original's, one per run: the two drivers run in turns, so each
	// ratio compares operations made under the same load.
	GetRatios     []float64
	GetOrigRatios []float64
	CreateRatios  []float64
	UpdateRatios  []float64
}

// countedDriver is a driver over a connection with its own request counter.
type countedDriver struct {
	label string
	d     driver.Driver
	stats *kube.Stats
}

func newCounted(cfg *rest.Config, label, ns string, chunkview bool) (*countedDriver, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 50, 100
	st := &kube.Stats{}
	st.Count(cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var d driver.Driver
	if chunkview {
		d = storage.NewChunkedSecrets(cs.CoreV1().Secrets(ns), rwOwner, storage.ChunkedSecretsConfig{})
	} else {
		d = hopstorage.NewChunkedSecrets(cs.CoreV1().Secrets(ns), rwOwner, hopstorage.ChunkedSecretsConfig{ChunkSize: storage.DefaultChunkSize})
	}
	return &countedDriver{label: label, d: d, stats: st}, nil
}

// timeOp runs op and returns its wall time, requests, bytes received and bytes
// allocated.
func (c *countedDriver) timeOp(op func() error) (time.Duration, int, int64, uint64, error) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	alloc0 := ms.TotalAlloc
	r0, b0 := c.stats.Total(), c.stats.BytesReceived()
	start := time.Now()
	err := op()
	wall := time.Since(start)
	runtime.ReadMemStats(&ms)
	return wall, c.stats.Total() - r0, c.stats.BytesReceived() - b0, ms.TotalAlloc - alloc0, err
}

type opRuns struct {
	walls []time.Duration
	reqs  int
	bytes int64
	alloc uint64
	label string
	n     int
	cpu   cpuTimes
}

func (o *opRuns) addCPU(c cpuTimes) {
	o.cpu.client += c.client
	o.cpu.apiserver += c.apiserver
	o.cpu.etcd += c.etcd
}

func (o *opRuns) add(w time.Duration, reqs int, bytes int64, alloc uint64) {
	o.walls = append(o.walls, w)
	o.reqs += reqs
	o.bytes += bytes
	o.alloc += alloc
	o.n++
}

func (o *opRuns) summary() opSummary {
	sort.Slice(o.walls, func(i, j int) bool { return o.walls[i] < o.walls[j] })
	s := opSummary{Label: o.label, Runs: o.n}
	if o.n == 0 {
		return s
	}
	s.Wall = o.walls[o.n/2]
	s.Requests = float64(o.reqs) / float64(o.n)
	s.Bytes = float64(o.bytes) / float64(o.n)
	s.Alloc = float64(o.alloc) / float64(o.n)
	s.WallMin = o.walls[0]
	s.CPU = cpuTimes{client: o.cpu.client / time.Duration(o.n), apiserver: o.cpu.apiserver / time.Duration(o.n), etcd: o.cpu.etcd / time.Duration(o.n)}
	return s
}

// largeSpec is the release of the read and write comparisons: about 7.8 MB of gzip,
// 8 chunks at the default chunk size.
func largeSpec() (relSpec, error) {
	s := relSpec{Index: 9001, Name: "bundle-platform-large", Class: classLarge, GZ: 7_800_000, Chart: "platform-base", Comps: 40, Seed: 0xb16, LastStatus: release.StatusDeployed}
	if err := calibrate(&s); err != nil {
		return s, err
	}
	return s, nil
}

func runReadWrite(ctx context.Context, bc *benchCluster, runs int) (*rwResult, error) {
	for _, ns := range []string{rwNamespaceCV, rwNamespaceHop} {
		if err := ensureNamespace(ctx, bc.Client, ns); err != nil {
			return nil, err
		}
		if err := bc.Client.CoreV1().Secrets(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			return nil, err
		}
	}
	spec, err := largeSpec()
	if err != nil {
		return nil, err
	}
	rls := buildRelease(spec, revisions, rwNamespaceCV)
	gz, _, err := storage.EncodePayload(rls)
	if err != nil {
		return nil, err
	}
	res := &rwResult{GzipBytes: len(gz), Chunks: len(storage.Split(gz, storage.DefaultChunkSize))}
	if res.Chunks != rwChunks {
		return nil, fmt.Errorf("the large release needs %d chunks, want %d: recalibrate largeSpec", res.Chunks, rwChunks)
	}

	cvGet, err := newCounted(bc.Config, "chunkview Get", rwNamespaceCV, true)
	if err != nil {
		return nil, err
	}
	hopGet, err := newCounted(bc.Config, "helm-operator-plugins v0.9.1 Get", rwNamespaceCV, false)
	if err != nil {
		return nil, err
	}
	getKey := storage.RecordKey(rls.Name, rls.Version)
	if err := cvGet.d.Create(getKey, rls); err != nil {
		return nil, fmt.Errorf("store the large release: %w", err)
	}
	// The same release as the next revision, written by the original driver.
	origRls := *rls
	origRls.Version = rls.Version + 1
	origKey := storage.RecordKey(origRls.Name, origRls.Version)
	if err := hopGet.d.Create(origKey, &origRls); err != nil {
		return nil, fmt.Errorf("store the large release with the original driver: %w", err)
	}
	// Reading: each record, the one chunkview wrote and the one the original wrote,
	// read by both drivers in turn, the order swapped every run; more runs than
	// elsewhere, since one Get is short and the machine is shared.
	type getCase struct {
		key     string
		runs    [2]*opRuns
		ratios  *[]float64
		summary *[2]opSummary
	}
	cases := []getCase{
		{getKey, [2]*opRuns{{label: cvGet.label}, {label: hopGet.label}}, &res.GetRatios, &res.Get},
		{origKey, [2]*opRuns{{label: cvGet.label + " (written by the original)"}, {label: hopGet.label + " (written by the original)"}}, &res.GetOrigRatios, &res.GetOrig},
	}
	getRuns := max(3*runs, 9)
	srv := serverProcs()
	for run := range getRuns + 1 {
		order := []int{0, 1}
		if run%2 == 1 {
			order = []int{1, 0}
		}
		for _, gc := range cases {
			var walls [2]time.Duration
			for _, i := range order {
				d := []*countedDriver{cvGet, hopGet}[i]
				fmt.Fprintf(os.Stderr, "read-write: %s, run %d of %d\n", gc.runs[i].label, run+1, getRuns+1)
				cpu0 := srv.cpu()
				w, n, b, a, err := d.timeOp(func() error {
					got, err := d.d.Get(gc.key)
					if err == nil && got.Manifest != rls.Manifest {
						err = fmt.Errorf("%s returned another release", d.label)
					}
					return err
				})
				if err != nil {
					return nil, err
				}
				walls[i] = w
				if run > 0 { // the first run warms connections and caches
					gc.runs[i].add(w, n, b, a)
					gc.runs[i].addCPU(srv.cpu().minus(cpu0))
				}
			}
			if run > 0 {
				*gc.ratios = append(*gc.ratios, float64(walls[0])/float64(walls[1]))
			}
		}
	}
	for _, gc := range cases {
		*gc.summary = [2]opSummary{gc.runs[0].summary(), gc.runs[1].summary()}
	}

	// Writing: each driver creates a revision, then updates it to superseded, as Helm
	// does to the previous revision on every upgrade.
	cvW, err := newCounted(bc.Config, "chunkview", rwNamespaceCV, true)
	if err != nil {
		return nil, err
	}
	hopW, err := newCounted(bc.Config, "helm-operator-plugins v0.9.1", rwNamespaceHop, false)
	if err != nil {
		return nil, err
	}
	creates := [2]*opRuns{{label: cvW.label + " Create"}, {label: hopW.label + " Create"}}
	updates := [2]*opRuns{{label: cvW.label + " Update"}, {label: hopW.label + " Update"}}
	writeRuns := max(runs, 5)
	for run := range writeRuns + 1 {
		// The order swapped every run, as for the Gets.
		order := []int{0, 1}
		if run%2 == 1 {
			order = []int{1, 0}
		}
		var cw, uw [2]time.Duration
		for _, i := range order {
			d := []*countedDriver{cvW, hopW}[i]
			fmt.Fprintf(os.Stderr, "read-write: %s Create and Update, run %d of %d\n", d.label, run+1, writeRuns+1)
			r := *rls
			r.Version = 100 + run
			k := storage.RecordKey(r.Name, r.Version)
			w, n, b, a, err := d.timeOp(func() error { return d.d.Create(k, &r) })
			if err != nil {
				return nil, fmt.Errorf("%s create: %w", d.label, err)
			}
			cw[i] = w
			if run > 0 {
				creates[i].add(w, n, b, a)
			}
			info := *r.Info
			info.Status = release.StatusSuperseded
			r.Info = &info
			w, n, b, a, err = d.timeOp(func() error { return d.d.Update(k, &r) })
			if err != nil {
				return nil, fmt.Errorf("%s update: %w", d.label, err)
			}
			uw[i] = w
			if run > 0 {
				updates[i].add(w, n, b, a)
			}
			if _, err := d.d.Delete(k); err != nil {
				return nil, fmt.Errorf("%s delete: %w", d.label, err)
			}
		}
		if run > 0 {
			res.CreateRatios = append(res.CreateRatios, float64(cw[0])/float64(cw[1]))
			res.UpdateRatios = append(res.UpdateRatios, float64(uw[0])/float64(uw[1]))
		}
	}
	res.Create = [2]opSummary{creates[0].summary(), creates[1].summary()}
	res.Update = [2]opSummary{updates[0].summary(), updates[1].summary()}
	return res, nil
}

// ratioSpread is the median, lowest and highest of per-run ratios.
type ratioSpread struct{ Median, Min, Max float64 }

func spreadOf(rs []float64) ratioSpread {
	if len(rs) == 0 {
		return ratioSpread{}
	}
	s := append([]float64(nil), rs...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return ratioSpread{Median: med, Min: s[0], Max: s[len(s)-1]}
}

// cpuTimes is CPU time spent by the processes taking part in an operation.
type cpuTimes struct{ client, apiserver, etcd time.Duration }

func (c cpuTimes) minus(d cpuTimes) cpuTimes {
	return cpuTimes{c.client - d.client, c.apiserver - d.apiserver, c.etcd - d.etcd}
}

func (c cpuTimes) total() time.Duration { return c.client + c.apiserver + c.etcd }

// servers are the API server's and etcd's process ids, when they are this process's
// children.
type servers struct{ apiserver, etcd int }

func serverProcs() servers {
	var s servers
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		st := string(b)
		open, end := strings.IndexByte(st, '('), strings.LastIndexByte(st, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(st[end+2:])
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		switch st[open+1 : end] {
		case "kube-apiserver":
			s.apiserver = pid
		case "etcd":
			s.etcd = pid
		}
	}
	return s
}

// procCPU returns the user and system time of process pid, or 0.
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	st := string(b)
	f := strings.Fields(st[strings.LastIndexByte(st, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+k) * time.Second / 100 // clock ticks; USER_HZ is 100 on Linux
}

func (s servers) cpu() cpuTimes {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return cpuTimes{
		client:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		apiserver: procCPU(s.apiserver),
		etcd:      procCPU(s.etcd),
	}
}
