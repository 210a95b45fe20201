package cli

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/chunkview/chunkview/kube"
)

// storeNames names the stores in the notes, as Helm users know them.
var storeNames = map[string]string{
	kube.DriverChunked:   "the chunked store",
	kube.DriverSecret:    "Helm's Secrets store",
	kube.DriverConfigMap: "Helm's ConfigMaps store",
}

// canI finds, in a Forbidden error's message (kube.Explain), what was refused
// and the line to check it with.
var (
	mayNotRE = regexp.MustCompile(`may not (\S+ \S+ (?:in namespace [a-z0-9-]+|across all namespaces|at the cluster scope))`)
	canIRE   = regexp.MustCompile(`\(kubectl auth can-i [^()]*(?:\([^()]*\))?[^()]*\)`)
)

// splitStoreSkips takes apart a listing's error: the stores it skipped (a user
// who may read Secrets and not ConfigMaps), and the rest, nil when nothing else
// went wrong.
func splitStoreSkips(err error) (skips []*kube.StoreSkipError, rest error) {
	var skip *kube.StoreSkipError
	if !errors.As(err, &skip) {
		return nil, err
	}
	if err == error(skip) {
		return []*kube.StoreSkipError{skip}, nil
	}
	// A join of the listing's notes (errors.Join) holds the skip: the others
	// are kept whole.
	multi, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil, err
	}
	var others []error
	for _, e := range multi.Unwrap() {
		s, r := splitStoreSkips(e)
		skips = append(skips, s...)
		if r != nil {
			others = append(others, r)
		}
	}
	return skips, errors.Join(others...)
}

// noteStoreSkips prints, once a run, a line for each store a listing had to
// skip, and returns err without them. The user who may read only Secrets sees
// it once, short, with the way to stop it, rather than the server's refusal in
// full on every listing, and twice on a command that lists twice.
func (r *run) noteStoreSkips(err error) error {
	skips, rest := splitStoreSkips(err)
	for _, s := range skips {
		for _, d := range kube.AllDrivers {
			cause, ok := s.Skipped[d]
			if !ok || r.noted[d] {
				continue
			}
			if r.noted == nil {
				r.noted = map[string]bool{}
			}
			r.noted[d] = true
			fmt.Fprintf(r.stderr, "Note: %s\n", r.skipNote(d, cause))
		}
	}
	return rest
}

// skipNote is the line for store d, skipped for cause.
func (r *run) skipNote(d string, cause error) string {
	msg := message(cause)
	why := msg
	if m := mayNotRE.FindStringSubmatch(msg); m != nil {
		why = "you may not " + m[1]
		if c := canIRE.FindString(msg); c != "" {
			why += " " + c
		}
	}
	var others []string
	if r.client != nil {
		for _, o := range r.client.Config().Drivers {
			if o != d {
				others = append(others, o)
			}
		}
	}
	if len(others) == 0 {
		others = slices.DeleteFunc(slices.Clone(kube.AllDrivers), func(o string) bool { return o == d })
	}
	return fmt.Sprintf("%s was not read: %s; --driver %s (or HELM_DRIVER) stops looking there", storeNames[d], why, strings.Join(others, ","))
}
