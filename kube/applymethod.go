package kube

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/chunkview/chunkview/storage"
)

// applyMethodTail is how much of the end of a record's JSON applyMethodAtEnd
// keeps: room for `,"apply_method":"..."}` and more.
const applyMethodTail = 256

// applyMethodAtEnd returns Helm 4's apply_method of a Helm record (data["release"]
// of Helm's Secrets or ConfigMaps driver), or "" when it has none. Helm 4 encodes
// apply_method as the release's last field, after the chart and the manifest, so
// the summary read off the front of a record (storage.PeekHelmSummary) never
// reaches it: this inflates the record to its end, keeping only its last bytes,
// and within the bound on decoded size, and reads the field there. A record whose
// writer put the field elsewhere shows its apply method once decoded whole.
func applyMethodAtEnd(data []byte, maxDecoded int64) string {
	r := io.Reader(base64.NewDecoder(base64.StdEncoding, bytes.NewReader(data)))
	zr, err := kgzip.NewReader(r)
	if err != nil {
		return "" // not gzip: Helm's oldest records, which predate Helm 4
	}
	defer zr.Close()
	tail := &tailBuffer{max: applyMethodTail}
	// As storage's decode of a Helm record: past 8 MiB, a record inflating to
	// more than 256 times its size is a gzip bomb, and is left.
	if maxDecoded <= 0 {
		maxDecoded = storage.DefaultMaxDecodedBytes
	}
	limit := min(maxDecoded, max(8<<20, 256*int64(len(data))))
	if n, err := io.Copy(tail, io.LimitReader(zr, limit+1)); err != nil || n > limit {
		return ""
	}
	js := bytes.TrimRight(tail.buf, " \n\r\t")
	const key = `"apply_method":`
	i := bytes.LastIndex(js, []byte(key))
	if i < 0 || !bytes.HasSuffix(js, []byte("}")) {
		return ""
	}
	var m string
	if err := json.Unmarshal(bytes.TrimSuffix(js[i+len(key):], []byte("}")), &m); err != nil {
		return ""
	}
	return m
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}
