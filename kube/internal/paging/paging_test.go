package paging

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fakePages serves pages of items; expire lists the calls (1-based) answered with
// 410 Gone instead.
type fakePages struct {
	pages  [][]string
	expire map[int]bool
	other  map[int]error
	calls  int
}

func (f *fakePages) page(_ context.Context, cont string) ([]string, string, error) {
	f.calls++
	if f.expire[f.calls] {
		return nil, "", apierrors.NewResourceExpired("The provided continue parameter is too old")
	}
	if err := f.other[f.calls]; err != nil {
		return nil, "", err
	}
	i := 0
	if cont != "" {
		i = int(cont[0] - '0')
	}
	next := ""
	if i+1 < len(f.pages) {
		next = string(rune('0' + i + 1))
	}
	return f.pages[i], next, nil
}

func TestAll(t *testing.T) {
	three := [][]string{{"a", "b"}, {"c", "d"}, {"e"}}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("no"))
	for _, tc := range []struct {
		name      string
		pages     [][]string
		expire    []int
		other     map[int]error
		want      string
		wantCalls int
		wantErr   string
	}{
		{"one page", [][]string{{"a", "b"}}, nil, nil, "a b", 1, ""},
		{"pages", three, nil, nil, "a b c d e", 3, ""},
		{"expired continue restarts from the start", three, []int{2}, nil, "a b c d e", 1 + 1 + 3, ""},
		{"expired on the last page", three, []int{3}, nil, "a b c d e", 3 + 3, ""},
		{"expired again and again", three, []int{2, 3, 4}, nil, "a b c d e", 1 + 1 + 1 + 1 + 3, ""},
		{"gives up after the restarts", three, []int{2, 4, 6, 8}, nil, "", 8, "restarted 3 times"},
		{"other errors are not retried", three, nil, map[int]error{2: forbidden}, "", 2, "forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakePages{pages: tc.pages, expire: map[int]bool{}, other: tc.other}
			for _, n := range tc.expire {
				f.expire[n] = true
			}
			got, err := All(context.Background(), f.page)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil {
					t.Fatalf("got %v, %v; want error %q and nothing", got, err, tc.wantErr)
				}
			} else if err != nil || strings.Join(got, " ") != tc.want {
				t.Fatalf("got %v, %v; want %s", got, err, tc.want)
			}
			if f.calls != tc.wantCalls {
				t.Errorf("%d requests, want %d", f.calls, tc.wantCalls)
			}
		})
	}
}
