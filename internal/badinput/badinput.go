// Package badinput is the corpus of malformed release records the storage, kube,
// CLI and UI tests load onto a cluster: each case a YAML file of Secret manifests in
// storage/testdata/badinput, with what every reader must make of it. The manifests
// are written by Generate (go test ./internal/badinput -update-badinput) so that the
// gzip streams and hashes in them are exact; the comment at the top of each file
// says what is wrong with it.
//
// Every payload carries PlantedSecret (as a password value and in a Secret manifest's
// stringData), so that tests can check that no error message or log line ever
// repeats payload data.
package badinput

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/chunkview/chunkview/storage"
)

// Owner is the owner label of every record in the corpus: storage.HelmOwner,
// the CLI's default. It is kept for storage's corpus test, which names it.
const Owner = storage.HelmOwner

// PlantedSecret is in every payload of the corpus; it must never appear in an error
// message, a log line or (unless revealed) any output.
const PlantedSecret = "pl4nted-S3CRET-9b1f27"

// PlantedSecretBase64 is PlantedSecret as it appears in a Secret's data.
var PlantedSecretBase64 = base64.StdEncoding.EncodeToString([]byte(PlantedSecret))

// Victim is a healthy release stored beside some cases, whose Secrets a malformed
// index tries to make readers fetch.
const Victim = "victim"

// Case is one malformed record and what readers must make of it.
type Case struct {
	// Name is the file's name without .yaml, and the release's name.
	Name string
	// Doc says what is wrong, in a sentence; it heads the file.
	Doc string
	// Problem is what verify --decode reports for the record; Quick what verify
	// without --decode reports ("" for nothing: the fault is inside the payload).
	Problem, Quick storage.ProblemKind
	// Readable is true when the driver still decodes the record (the fault is in
	// its labels, not its data).
	Readable bool
	// Secret is the Secret whose name every error about the case must carry.
	Secret string
	// WithVictim stores the healthy release Victim beside the case.
	WithVictim bool
	// Bomb marks the cases whose memory use is measured.
	Bomb bool
	// AtBound marks a bomb the ratio guard lets through: it is refused at the
	// absolute bound on decompressed size, and costs about that bound.
	AtBound bool
	// Unlisted is true when the record is not an index of storage.HelmOwner by its labels, so
	// listings do not show it at all.
	Unlisted bool

	build func(c *Case) ([]*corev1.Secret, error)
}

// Key is the record key of the case's release.
func (c *Case) Key() string { return storage.RecordKey(c.Name, 1) }

// File is the path of the case's manifest file.
func (c *Case) File() string { return filepath.Join(Dir(), c.Name+".yaml") }

// Dir is the folder that holds the corpus.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "storage", "testdata", "badinput")
}

// Release returns the well-formed release of a case, with the planted secret.
func Release(name string) map[string]any {
	manifest := fmt.Sprintf("---\n# Source: app/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: %[1]s-db\ntype: Opaque\nstringData:\n  password: %[2]s\n---\n# Source: app/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %[1]s-config\ndata:\n  color: blue\n", name, PlantedSecret)
	return map[string]any{
		"name":      name,
		"namespace": "default",
		"version":   1,
		"manifest":  manifest,
		"config":    map[string]any{"db": map[string]any{"password": PlantedSecret}, "replicas": 2},
		"info": map[string]any{
			"first_deployed": "2026-10-01T09:00:00Z",
			"last_deployed":  "2026-10-01T09:00:00Z",
			"status":         "deployed",
			"description":    "Install complete",
		},
		"chart":  map[string]any{"metadata": map[string]any{"name": "app", "version": "1.0.0", "appVersion": "2.0", "apiVersion": "v2"}},
		"labels": map[string]string{},
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// gz compresses b at best compression, as the format does.
func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// index returns an index Secret of key holding first and naming extra.
func index(name string, first []byte, extra []byte) *corev1.Secret {
	key := storage.RecordKey(name, 1)
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: key, Labels: map[string]string{
			storage.LabelName: name, storage.LabelOwner: storage.HelmOwner, storage.LabelStatus: "deployed", storage.LabelVersion: "1",
			storage.LabelKey: key, storage.LabelType: storage.TypeIndex, storage.LabelCreatedAt: "1790000000",
		}},
		Type: storage.SecretTypeIndex,
		Data: map[string][]byte{storage.DataChunk: first, storage.DataExtraChunks: extra},
	}
}

// chunk returns a chunk Secret of key named name, owned by the index (its UID is
// filled in when the corpus is applied).
func chunk(key, name string, data []byte) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			storage.LabelOwner: storage.HelmOwner, storage.LabelKey: key, storage.LabelType: storage.TypeChunk, storage.LabelCreatedAt: "1790000000",
		}, OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: key, UID: "filled-in-when-applied", Controller: new(true), BlockOwnerDeletion: new(false)}}},
		Type:      storage.SecretTypeChunk,
		Immutable: new(true),
		Data:      map[string][]byte{storage.DataChunk: data},
	}
}

// record returns a well-formed record of stream cut into slices of size bytes.
func record(name string, stream []byte, size int) []*corev1.Secret {
	key := storage.RecordKey(name, 1)
	slices := storage.Split(stream, size)
	var names []string
	var out []*corev1.Secret
	for _, s := range slices[1:] {
		n := storage.ChunkName(key, s)
		if !contains(names, n) {
			out = append(out, chunk(key, n, s))
		}
		names = append(names, n)
	}
	if names == nil {
		names = []string{}
	}
	return append([]*corev1.Secret{index(name, slices[0], mustJSON(names))}, out...)
}

func contains(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

// payload is the gzip stream of a case's well-formed release.
func payload(name string) []byte { return gz(mustJSON(Release(name))) }

// Cases returns the corpus, in file name order.
func Cases() []*Case {
	cs := slices.Concat(streamCases(), indexCases(), secretCases())
	for _, c := range cs {
		if c.Secret == "" {
			c.Secret = c.Key()
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	return cs
}

// streamCases are the records whose payload is damaged: the gzip stream, or the JSON in it.
func streamCases() []*Case {
	return []*Case{
		{Name: "truncated-gzip", Doc: "The gzip stream stops half-way: no end of the deflate data, no trailer.",
			Problem: storage.ProblemDecode, build: func(c *Case) ([]*corev1.Secret, error) {
				p := payload(c.Name)
				return []*corev1.Secret{index(c.Name, p[:len(p)/2], []byte("[]"))}, nil
			}},
		{Name: "gzip-bomb", Doc: "A JSON document that starts like a release and then runs on: 256 MiB of one letter, compressed a thousandfold into four chunks.",
			Problem: storage.ProblemDecode, Bomb: true, build: func(c *Case) ([]*corev1.Secret, error) {
				var buf bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
				fmt.Fprintf(zw, `{"name":%q,"version":1,"info":{"status":"deployed"},"config":{"password":%q},"manifest":"`, c.Name, PlantedSecret)
				block := bytes.Repeat([]byte("a"), 1<<20)
				for range 256 {
					_, _ = zw.Write(block)
				}
				_, _ = zw.Write([]byte(`"}`))
				_ = zw.Close()
				return record(c.Name, buf.Bytes(), buf.Len()/4+1), nil
			}},
		{Name: "repeated-random-block", Doc: "A JSON document that starts like a release and runs on with one random 1 KiB block repeated: 160 MiB, compressed about 200:1 (under the ratio guard) into four chunks.",
			Problem: storage.ProblemDecode, Bomb: true, AtBound: true, build: func(c *Case) ([]*corev1.Secret, error) {
				var buf bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
				fmt.Fprintf(zw, `{"name":%q,"version":1,"info":{"status":"deployed"},"config":{"password":%q},"manifest":"`, c.Name, PlantedSecret)
				rng := rand.New(rand.NewPCG(1, 2))
				block := make([]byte, 1<<10)
				for i := range block {
					block[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[rng.IntN(62)]
				}
				for range 160 << 10 {
					_, _ = zw.Write(block)
				}
				_, _ = zw.Write([]byte(`"}`))
				_ = zw.Close()
				return record(c.Name, buf.Bytes(), buf.Len()/4+1), nil
			}},
		{Name: "invalid-json", Doc: "The gzip stream is sound; what it holds is not JSON.",
			Problem: storage.ProblemDecode, build: func(c *Case) ([]*corev1.Secret, error) {
				js := mustJSON(Release(c.Name))
				bad := append(js[:len(js)-1:len(js)-1], []byte(` this is not JSON "`+PlantedSecret+`"`)...)
				return []*corev1.Secret{index(c.Name, gz(bad), []byte("[]"))}, nil
			}},
		{Name: "duplicate-json-keys", Doc: `The payload's JSON has "name" twice: first this release's, then another's. Go keeps the last, so it would read as another release; readers refuse it.`,
			Problem: storage.ProblemDecode, build: func(c *Case) ([]*corev1.Secret, error) {
				js := mustJSON(Release(c.Name))
				dup := append([]byte(`{"name":"`+c.Name+`",`), js[1:]...)
				dup = bytes.Replace(dup, []byte(`"name":"`+c.Name+`","namespace"`), []byte(`"name":"impostor","namespace"`), 1)
				return []*corev1.Secret{index(c.Name, gz(dup), []byte("[]"))}, nil
			}},
		{Name: "summary-lies", Doc: "A sound record whose chunkview summary annotation claims a 128 MiB payload and whose payload-sha256 annotation is wrong.",
			Problem: storage.ProblemDecode, build: func(c *Case) ([]*corev1.Secret, error) {
				secs := record(c.Name, payload(c.Name), 1<<20)
				secs[0].Annotations = map[string]string{
					storage.AnnotationChunks:        "1",
					storage.AnnotationSummary:       `{"chart":"app","decodedBytes":134217728,"storedBytes":1000}`,
					storage.AnnotationPayloadSHA256: strings.Repeat("0", 64),
				}
				return secs, nil
			}},
	}
}

// indexCases are the records whose index lists chunks wrongly.
func indexCases() []*Case {
	return []*Case{
		{Name: "extrachunks-not-json", Doc: "data.extraChunks is not a JSON array of names.",
			Problem: storage.ProblemBadIndex, Quick: storage.ProblemBadIndex, build: func(c *Case) ([]*corev1.Secret, error) {
				return []*corev1.Secret{index(c.Name, payload(c.Name), []byte(`chunk-1, chunk-2 `+PlantedSecret))}, nil
			}},
		{Name: "extrachunks-huge", Doc: "data.extraChunks lists over 300 KiB of names, all of its own key: more than any real record, refused before a single chunk is fetched.",
			Problem: storage.ProblemBadIndex, Quick: storage.ProblemBadIndex, build: func(c *Case) ([]*corev1.Secret, error) {
				var names []string
				for i := 0; len(names)*48 < 300<<10; i++ {
					names = append(names, storage.ChunkName(c.Key(), []byte(fmt.Sprint(i))))
				}
				return []*corev1.Secret{index(c.Name, payload(c.Name), mustJSON(names))}, nil
			}},
		{Name: "extrachunks-other-release", Doc: "data.extraChunks names the chunk Secret of another release (victim), whose bytes would check against its name.",
			Problem: storage.ProblemBadIndex, Quick: storage.ProblemBadIndex, WithVictim: true, build: func(c *Case) ([]*corev1.Secret, error) {
				v := record(Victim, payload(Victim), 256)
				return []*corev1.Secret{index(c.Name, payload(c.Name)[:256], mustJSON([]string{v[1].Name}))}, nil
			}},
		{Name: "extrachunks-other-owner", Doc: "data.extraChunks names a Secret of another owner's record (operator-controller's release of the same name, in its own key form) and an index Secret.",
			Problem: storage.ProblemBadIndex, Quick: storage.ProblemBadIndex, build: func(c *Case) ([]*corev1.Secret, error) {
				theirs := record(c.Name+"-theirs", payload(c.Name+"-theirs"), 256)
				for _, s := range theirs {
					s.Labels[storage.LabelOwner] = "operator-controller"
				}
				idx := index(c.Name, payload(c.Name)[:256], mustJSON([]string{theirs[1].Name, theirs[0].Name}))
				return append([]*corev1.Secret{idx}, theirs...), nil
			}},
		{Name: "extrachunks-duplicate-name", Doc: "data.extraChunks lists the second chunk twice where the stream has three different slices: the names check, the stream does not.",
			Problem: storage.ProblemDecode, build: func(c *Case) ([]*corev1.Secret, error) {
				p := payload(c.Name)
				size := len(p)/3 + 1
				secs := record(c.Name, p, size)
				if len(secs) != 3 {
					return nil, fmt.Errorf("%s: want 3 slices, have %d Secrets", c.Name, len(secs))
				}
				secs[0].Data[storage.DataExtraChunks] = mustJSON([]string{secs[1].Name, secs[1].Name})
				c.Secret = c.Key()
				return secs[:2], nil
			}},
	}
}

// secretCases are the records whose Secrets are altered: a chunk's bytes, a type, the labels.
func secretCases() []*Case {
	return []*Case{
		{Name: "chunk-hash-mismatch", Doc: "The second chunk's bytes were altered: they no longer hash to the name.",
			Problem: storage.ProblemHashMismatch, Quick: storage.ProblemHashMismatch, build: func(c *Case) ([]*corev1.Secret, error) {
				secs := record(c.Name, payload(c.Name), 128)
				if len(secs) < 3 {
					return nil, fmt.Errorf("%s: want several chunks", c.Name)
				}
				d := bytes.Clone(secs[1].Data[storage.DataChunk])
				d[len(d)/2] ^= 0x20
				secs[1].Data[storage.DataChunk] = d
				c.Secret = secs[1].Name
				return secs, nil
			}},
		{Name: "wrong-type-index", Doc: "The index Secret is labelled as one but has type Opaque, as if written by something else.",
			Problem: storage.ProblemWrongType, Quick: storage.ProblemWrongType, build: func(c *Case) ([]*corev1.Secret, error) {
				secs := record(c.Name, payload(c.Name), 1<<20)
				secs[0].Type = corev1.SecretTypeOpaque
				return secs, nil
			}},
		{Name: "wrong-type-chunk", Doc: "A Secret labelled as a chunk of a healthy release, named by no index, of type Opaque: not a leftover of chunkview's, so gc must leave it.",
			Problem: storage.ProblemWrongType, Quick: storage.ProblemWrongType, Readable: true, build: func(c *Case) ([]*corev1.Secret, error) {
				secs := record(c.Name, payload(c.Name), 1<<20)
				stray := chunk(c.Key(), storage.ChunkName(c.Key(), []byte(PlantedSecret)), []byte(PlantedSecret))
				stray.Type = corev1.SecretTypeOpaque
				stray.OwnerReferences = nil
				c.Secret = stray.Name
				return append(secs, stray), nil
			}},
		{Name: "missing-labels", Doc: "The index Secret carries only the owner and type labels: no name, status, version or key.",
			Problem: storage.ProblemLabelMismatch, Readable: true, build: func(c *Case) ([]*corev1.Secret, error) {
				secs := record(c.Name, payload(c.Name), 1<<20)
				for _, l := range []string{storage.LabelName, storage.LabelStatus, storage.LabelVersion, storage.LabelKey} {
					delete(secs[0].Labels, l)
				}
				return secs, nil
			}},
		{Name: "version-label-mismatch", Doc: "The index is labelled version 7; the payload it holds is revision 1.",
			Problem: storage.ProblemLabelMismatch, Readable: true, build: func(c *Case) ([]*corev1.Secret, error) {
				secs := record(c.Name, payload(c.Name), 1<<20)
				secs[0].Labels[storage.LabelVersion] = "7"
				return secs, nil
			}},
	}
}

// Generate writes the corpus files into dir.
func Generate(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range Cases() {
		secs, err := c.build(c)
		if err != nil {
			return err
		}
		if c.WithVictim {
			secs = append(secs, record(Victim, payload(Victim), 256)...)
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "# %s\n#\n# %s\n# verify --decode reports: %s\n", c.Name, c.Doc, c.Problem)
		fmt.Fprintf(&b, "# Generated by `go test ./internal/badinput -update-badinput`; the data fields are exact bytes (gzip, hashes).\n")
		for _, s := range secs {
			y, err := yaml.Marshal(s)
			if err != nil {
				return err
			}
			b.WriteString("---\n")
			b.Write(y)
		}
		if err := os.WriteFile(filepath.Join(dir, c.Name+".yaml"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Load reads the Secrets of a case's file.
func Load(c *Case) ([]*corev1.Secret, error) {
	b, err := os.ReadFile(c.File())
	if err != nil {
		return nil, err
	}
	var out []*corev1.Secret
	for _, doc := range strings.Split(string(b), "\n---\n") {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		var s corev1.Secret
		if err := yaml.UnmarshalStrict([]byte(doc), &s); err != nil {
			return nil, fmt.Errorf("%s: %w", c.File(), err)
		}
		out = append(out, &s)
	}
	return out, nil
}

func stripComments(doc string) string {
	var keep []string
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") && strings.TrimSpace(l) != "---" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// Apply stores a case's Secrets through client (a namespace's Secrets): indexes
// first, then the others with their ownerReferences pointing at the new UIDs.
func Apply(ctx context.Context, client corev1client.SecretInterface, c *Case) error {
	secs, err := Load(c)
	if err != nil {
		return err
	}
	uids := map[string]types.UID{}
	for pass := 0; pass < 2; pass++ {
		for _, s := range secs {
			isIndex := s.Labels[storage.LabelType] == storage.TypeIndex
			if isIndex != (pass == 0) {
				continue
			}
			s := s.DeepCopy()
			for i := range s.OwnerReferences {
				s.OwnerReferences[i].UID = uids[s.OwnerReferences[i].Name]
			}
			got, err := client.Create(ctx, s, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("%s: create Secret %s: %w", c.Name, s.Name, err)
			}
			uids[got.Name] = got.UID
		}
	}
	return nil
}

// Find returns the case named name.
func Find(name string) *Case {
	for _, c := range Cases() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Loaded returns the cases after running each one's build, so that fields set while
// building (Secret) are filled in. It does not touch the files.
func Loaded() []*Case {
	cs := Cases()
	for _, c := range cs {
		if !c.Bomb { // slow to build, and its Secret is its index
			_, _ = c.build(c)
		}
	}
	return cs
}
