package demo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/chunkview/chunkview/internal/fakeapi"
)

// Seeding every sample costs about a second of CPU (a gzip pass at best
// compression over 12 MB of release JSON, the sample charts rendered), on
// every whole-demo command. So the demo seeds once and keeps the result: a
// snapshot of the whole cluster (every store's records, the live objects, the
// controllers) in a file, which later starts read back. A snapshot holds
// release times of the moment it was made, so a demo started from one runs on
// a Clock that starts there.

// CacheEnv names the directory the demo keeps its snapshots in; "off" keeps
// none. Unset, it is the user's cache directory's chunkview/demo.
const CacheEnv = "CHUNKVIEW_DEMO_CACHE"

// SnapshotMaxAge is how old a snapshot may be and still be used: past it the
// demo seeds again, so that the dates it shows stay recent.
const SnapshotMaxAge = 24 * time.Hour

// snapshotFormat changes whenever the file's layout does.
const snapshotFormat = "chunkview-demo-snapshot/1"

// Snapshots is where the demo keeps its seeded clusters.
type Snapshots struct {
	// Dir holds the snapshot files; "" keeps none, and Start seeds every time.
	Dir string
	// Key names what the samples are made by: the binary's build ID
	// (BuildKey), which changes with any change to its code. A snapshot made
	// under another key is never read.
	Key string
}

// DefaultSnapshots returns the snapshots of CacheEnv (read with getenv) under
// the binary's BuildKey. Without a cache directory, or without a build key
// that names the binary's content, it keeps none.
func DefaultSnapshots(getenv func(string) string) Snapshots {
	dir := getenv(CacheEnv)
	switch dir {
	case "off":
		return Snapshots{}
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return Snapshots{}
		}
		dir = filepath.Join(base, "chunkview", "demo")
	}
	key := BuildKey()
	if key == "" {
		return Snapshots{}
	}
	return Snapshots{Dir: dir, Key: key}
}

// BuildKey returns what names the running binary's content: its Go build ID,
// a hash of every input it was built from; else the VCS revision it was built
// at when its tree was clean; else "".
func BuildKey() string {
	if exe, err := os.Executable(); err == nil {
		if id := goBuildID(exe); id != "" {
			return "buildid:" + id
		}
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" && settings["vcs.modified"] == "false" {
		return "vcs:" + rev + ":" + bi.GoVersion
	}
	return ""
}

// goBuildID reads the Go build ID of the executable at path: the ELF note the
// linker writes, else the string it puts at the start of the text (other
// formats). A few KiB are read, never the whole binary.
func goBuildID(path string) string {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		if s := f.Section(".note.go.buildid"); s != nil {
			if data, err := s.Data(); err == nil && len(data) > 16 {
				// namesz, descsz, type, "Go\x00\x00", then the ID.
				return strings.TrimRight(string(data[16:]), "\x00")
			}
		}
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	const marker = "\xff Go build ID: \""
	i := bytes.Index(head[:n], []byte(marker))
	if i < 0 {
		return ""
	}
	rest := head[i+len(marker) : n]
	if j := bytes.IndexByte(rest, '"'); j > 0 {
		return string(rest[:j])
	}
	return ""
}

// Started is a demo cluster ready for use.
type Started struct {
	Cluster *fakeapi.Cluster
	// Clock is the demo's clock: the cluster reads it already; give it to
	// everything else that dates or measures ages on the demo.
	Clock *Clock
	// Live is the samples' live objects, already written.
	Live *Live
	// Restored says the cluster was read from a snapshot.
	Restored bool
}

// snapshotHeader opens a snapshot file: 8 bytes of its length, then it
// (gob), then the cluster (fakeapi's Snapshot) to the end of the file.
type snapshotHeader struct {
	Format string
	Key    string
	Made   time.Time
	// Sum is the CRC-32C of the cluster: a file changed after it was written
	// is not read as another cluster.
	Sum uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fileKey is what names a snapshot of opts under s.Key: the build, and what
// opts select (opts.Now aside, which the snapshot records).
func (s Snapshots) fileKey(variant string, opts SeedOptions) string {
	only := "all"
	if opts.Only != nil {
		only = strings.Join(slices.Sorted(slices.Values(opts.Only)), ",")
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\n%s\n%s\nintact=%v\nonly=%s", snapshotFormat, s.Key, variant, opts.Intact, only))
	return hex.EncodeToString(sum[:])
}

func (s Snapshots) path(variant, key string) string {
	return filepath.Join(s.Dir, "demo-"+variant+"-"+key[:20]+".snap")
}

// Open returns the cluster of the snapshot of variant (a name for opts, such
// as the demo's context), its live objects written and its Clock started at
// the snapshot's moment: false when there is none made under s.Key less than
// SnapshotMaxAge ago, or it cannot be read whole. base is the time elapsed
// is measured with (nil: time.Now).
func (s Snapshots) Open(variant string, opts SeedOptions, base func() time.Time) (*Started, bool) {
	if s.Dir == "" {
		return nil, false
	}
	if base == nil {
		base = time.Now
	}
	c, made, ok := s.read(variant, s.fileKey(variant, opts), base())
	if !ok {
		return nil, false
	}
	clock := NewClock(made, base)
	c.SetClock(clock.Now) // what the demo creates from now on is dated by it
	return &Started{Cluster: c, Clock: clock, Live: startedLive(), Restored: true}, true
}

// Start is Open, else a cluster seeded now with opts, its live objects
// written, then kept as the snapshot of variant. A snapshot that cannot be
// read is seeded again; one that cannot be written is not kept. opts.Now and
// opts.Live are not used.
func (s Snapshots) Start(ctx context.Context, variant string, opts SeedOptions, base func() time.Time) (*Started, error) {
	if st, ok := s.Open(variant, opts, base); ok {
		return st, nil
	}
	clock := NewClock(time.Time{}, base)
	opts.Now, opts.Live = clock.start, nil
	clock.made = opts.Now
	c := fakeapi.NewCluster()
	c.SetClock(clock.Now)
	if _, err := Seed(ctx, c, opts); err != nil {
		return nil, err
	}
	if s.Dir != "" {
		_ = s.write(variant, s.fileKey(variant, opts), opts.Now, c) // a cache: a failure costs the next start a seed
	}
	return &Started{Cluster: c, Clock: clock, Live: startedLive()}, nil
}

// startedLive is a Live with nothing held back.
func startedLive() *Live {
	l := NewLive()
	_ = l.Start() // nothing to write
	return l
}

// read returns the cluster of the snapshot of variant under key, and the
// moment it was made; false when there is none, or it is of another key,
// older than SnapshotMaxAge at now, or does not read back whole.
func (s Snapshots) read(variant, key string, now time.Time) (*fakeapi.Cluster, time.Time, bool) {
	data, err := os.ReadFile(s.path(variant, key))
	if err != nil {
		return nil, time.Time{}, false
	}
	if len(data) < 8 || binary.BigEndian.Uint64(data) > uint64(len(data)-8) {
		return nil, time.Time{}, false
	}
	n := 8 + int(binary.BigEndian.Uint64(data))
	var f snapshotHeader
	if err := gob.NewDecoder(bytes.NewReader(data[8:n])).Decode(&f); err != nil {
		return nil, time.Time{}, false
	}
	cluster := data[n:]
	if f.Format != snapshotFormat || f.Key != key || crc32.Checksum(cluster, castagnoli) != f.Sum {
		return nil, time.Time{}, false
	}
	if age := now.Sub(f.Made); age < 0 || age >= SnapshotMaxAge {
		return nil, time.Time{}, false
	}
	c := fakeapi.NewCluster()
	if err := c.Restore(cluster); err != nil {
		return nil, time.Time{}, false
	}
	return c, f.Made, true
}

// write keeps c as the snapshot of variant under key, made at made: written
// to a file of its own, then renamed over the snapshot, so that a demo
// starting meanwhile reads the old file or the new, never part of one.
// Snapshots older than SnapshotMaxAge (of other builds among them) are removed.
func (s Snapshots) write(variant, key string, made time.Time, c *fakeapi.Cluster) error {
	cluster, err := c.Snapshot()
	if err != nil {
		return err
	}
	var header bytes.Buffer
	f := snapshotHeader{Format: snapshotFormat, Key: key, Made: made, Sum: crc32.Checksum(cluster, castagnoli)}
	if err := gob.NewEncoder(&header).Encode(&f); err != nil {
		return err
	}
	buf := binary.BigEndian.AppendUint64(make([]byte, 0, 8+header.Len()+len(cluster)), uint64(header.Len()))
	buf = append(append(buf, header.Bytes()...), cluster...)
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, ".demo-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	if _, err := tmp.Write(buf); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), s.path(variant, key)); err != nil {
		return err
	}
	s.removeStale(time.Now()) // file times are the real clock
	return nil
}

// removeStale removes the snapshots, and the temporary files of writes that
// died, last changed SnapshotMaxAge or more before now.
func (s Snapshots) removeStale(now time.Time) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "demo-") && !strings.HasPrefix(name, ".demo-") {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) >= SnapshotMaxAge {
			_ = os.Remove(filepath.Join(s.Dir, name))
		}
	}
}
