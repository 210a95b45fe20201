package chunked

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pagedSource is a list of n metadata items that answers as a kind of source
// does: "cache" as controller-runtime's cache readers (cut at the limit, the
// token continue-not-supported on every answer, a continued list refused with
// a plain error); "renamed", the same under a token of its own; "server", an
// API server whose continued lists fail with failPage, the error a server or
// the connection to it answers with. It keeps the options of every call.
type pagedSource struct {
	kind     string
	n        int
	failPage error
	calls    []metav1.ListOptions
}

func (s *pagedSource) list(_ context.Context, opts metav1.ListOptions) ([]metav1.PartialObjectMetadata, string, error) {
	s.calls = append(s.calls, opts)
	from := 0
	if opts.Continue != "" {
		if s.kind != "server" {
			return nil, "", errors.New("continue list option is not supported by the cache")
		}
		if s.failPage != nil {
			return nil, "", s.failPage
		}
		from, _ = strconv.Atoi(opts.Continue)
	}
	to := s.n
	if opts.Limit > 0 {
		to = min(s.n, from+int(opts.Limit))
	}
	items := make([]metav1.PartialObjectMetadata, 0, to-from)
	for i := from; i < to; i++ {
		items = append(items, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("s", i)}})
	}
	switch {
	case s.kind == "cache":
		return items, continueNotSupported, nil
	case s.kind == "renamed":
		return items, "the-next-page", nil
	case to < s.n:
		return items, strconv.Itoa(to), nil
	}
	return items, "", nil
}

// TestListAllSources: listAll reads a source that has no pages whole, in one
// list without a limit after a full first page (and in that page alone when it
// is short), whether it knows the source's token or only meets the refusal;
// it hands every item once. A continued list that an API server, or the
// connection to it, fails is not read whole but fails the listing, as before.
func TestListAllSources(t *testing.T) {
	const limit = 4
	serverErr := apierrors.NewInternalError(errors.New("etcd is down"))
	netErr := &url.Error{Op: "Get", URL: "https://apiserver/api/v1/secrets", Err: errors.New("connection reset by peer")}
	for _, c := range []struct {
		name    string
		src     *pagedSource
		want    error
		limits  []int64 // of the calls made
		tokened int     // calls that sent a continue token
	}{
		{"cache, short page", &pagedSource{kind: "cache", n: 3}, nil, []int64{limit}, 0},
		{"cache, full page", &pagedSource{kind: "cache", n: 10}, nil, []int64{limit, 0}, 0},
		{"renamed token, short page", &pagedSource{kind: "renamed", n: 3}, nil, []int64{limit, limit, 0}, 1},
		{"renamed token, full page", &pagedSource{kind: "renamed", n: 10}, nil, []int64{limit, limit, 0}, 1},
		{"server, pages", &pagedSource{kind: "server", n: 10}, nil, []int64{limit, limit, limit}, 2},
		{"server fails page 2", &pagedSource{kind: "server", n: 10, failPage: serverErr}, serverErr, []int64{limit, limit}, 1},
		{"connection fails page 2", &pagedSource{kind: "server", n: 10, failPage: netErr}, netErr, []int64{limit, limit}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			err := listAll(t.Context(), "", limit, c.src.list, func(m *metav1.PartialObjectMetadata) error {
				got = append(got, m.Name)
				return nil
			})
			if !errors.Is(err, c.want) {
				t.Fatalf("listAll: %v, want %v", err, c.want)
			}
			var limits []int64
			tokened := 0
			for _, o := range c.src.calls {
				limits = append(limits, o.Limit)
				if o.Continue != "" {
					tokened++
				}
			}
			if !slices.Equal(limits, c.limits) || tokened != c.tokened {
				t.Errorf("calls with limits %v, %d with a token; want %v, %d", limits, tokened, c.limits, c.tokened)
			}
			if c.want != nil {
				return
			}
			want := make([]string, c.src.n)
			for i := range want {
				want[i] = fmt.Sprint("s", i)
			}
			if !slices.Equal(got, want) {
				t.Errorf("items %v, want %v, each once", got, want)
			}
		})
	}
}
