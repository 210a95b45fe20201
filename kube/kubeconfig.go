package kube

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
)

// ErrNoContext is wrapped by the error of --context naming a context the
// kubeconfig (or the demo) does not have: like a missing kubeconfig, the cluster
// cannot be reached at all.
var ErrNoContext = errors.New("no such kube context")

// noKubeconfigError is ErrNoKubeconfig naming the files that were looked for, so
// that --kubeconfig /nope says /nope.
type noKubeconfigError struct {
	files []string
	from  string // what named them: "--kubeconfig", "KUBECONFIG" or ""
}

func (e *noKubeconfigError) Error() string {
	switch {
	case len(e.files) == 0:
		return ErrNoKubeconfig.Error()
	case e.from == "":
		return fmt.Sprintf("no kubeconfig found: %s does not exist (set KUBECONFIG or --kubeconfig); try --demo", strings.Join(e.files, ", "))
	case len(e.files) == 1:
		return fmt.Sprintf("no kubeconfig found: %s (%s) does not exist; try --demo", e.files[0], e.from)
	}
	return fmt.Sprintf("no kubeconfig found: none of %s (%s) exists; try --demo", strings.Join(e.files, ", "), e.from)
}

// Is makes errors.Is(err, ErrNoKubeconfig) hold, for the exit code.
func (e *noKubeconfigError) Is(target error) bool { return target == ErrNoKubeconfig }

// NoContextError is the error of a context name that is not among contexts,
// listing them; where says where they come from ("the kubeconfig", "the demo").
func NoContextError(name, where string, contexts []string) error {
	sort.Strings(contexts)
	list := "none"
	if len(contexts) > 0 {
		list = strings.Join(contexts, ", ")
	}
	return &noContextError{msg: fmt.Sprintf("%s has no context %q (its contexts: %s); pick one with --context", where, name, list)}
}

// noContextError is ErrNoContext with a message of its own.
type noContextError struct{ msg string }

func (e *noContextError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrNoContext) hold, for the exit code.
func (e *noContextError) Is(target error) bool { return target == ErrNoContext }

// explainConfig turns client-go's errors about the kubeconfig into chunkview's:
// a missing context names itself and the contexts there are.
func (o *Options) explainConfig(err error) error {
	ctx := ""
	if o.Flags.Context != nil {
		ctx = *o.Flags.Context
	}
	// client-go says it two ways: "context was not found for specified
	// context" when validating, "context %q does not exist" when loading.
	if ctx != "" && (clientcmd.IsContextNotFound(err) || strings.Contains(err.Error(), fmt.Sprintf("context %q does not exist", ctx))) {
		names, lerr := o.ContextNames()
		if lerr == nil {
			return NoContextError(ctx, "the kubeconfig", names)
		}
		return NoContextError(ctx, "the kubeconfig", nil)
	}
	if clientcmd.IsEmptyConfig(err) {
		return ErrNoKubeconfig
	}
	return fmt.Errorf("load kubeconfig: %w", err)
}

// ContextNames returns the names of the kubeconfig's contexts, sorted.
func (o *Options) ContextNames() ([]string, error) {
	raw, err := o.Flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, fmt.Errorf("read the kubeconfig's contexts: %w", err)
	}
	names := make([]string, 0, len(raw.Contexts))
	for n := range raw.Contexts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}
