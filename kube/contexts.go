package kube

import (
	"context"
	"fmt"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Contexts are the clusters a view can switch between without a restart: the
// kubeconfig's contexts, or the demo's in-memory clusters. The view calls these
// functions inside its commands and never handles a kubeconfig itself.
type Contexts struct {
	// Current is the context in use when the view starts ("" when unknown).
	Current string
	// List returns the names of the contexts, sorted.
	List func() ([]string, error)
	// Connect returns a client on context name, made with the same flags as
	// the one in use. It does not reach the cluster; see Client.Ping.
	Connect func(name string) (*Client, error)
}

// Contexts returns the kubeconfig's contexts, to switch between with the flags
// in use.
func (o *Options) Contexts() *Contexts {
	current := ""
	if f := o.Flags.Context; f != nil && *f != "" {
		current = *f
	} else if raw, err := o.Flags.ToRawKubeConfigLoader().RawConfig(); err == nil {
		current = raw.CurrentContext
	}
	return &Contexts{Current: current, List: o.ContextNames, Connect: o.ConnectContext}
}

// ConnectContext connects as Connect does, with the same flags but kube context
// name. o is left as it is.
func (o *Options) ConnectContext(name string) (*Client, error) {
	raw, err := o.Flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, fmt.Errorf("read the kubeconfig's contexts: %w", err)
	}
	if _, ok := raw.Contexts[name]; !ok {
		return nil, fmt.Errorf("%w: the kubeconfig has no context %q", ErrNotFound, name)
	}
	cp := *o
	cp.Flags = cloneConfigFlags(o.Flags)
	cp.Flags.Context = &name
	return cp.Connect()
}

// cloneConfigFlags copies the values of the flags set in f into fresh flags, which
// build their clients anew (ConfigFlags caches the client config it made).
func cloneConfigFlags(f *genericclioptions.ConfigFlags) *genericclioptions.ConfigFlags {
	out := genericclioptions.NewConfigFlags(true)
	strs := []struct{ dst, src **string }{
		{&out.CacheDir, &f.CacheDir}, {&out.KubeConfig, &f.KubeConfig}, {&out.ClusterName, &f.ClusterName},
		{&out.AuthInfoName, &f.AuthInfoName}, {&out.Namespace, &f.Namespace}, {&out.APIServer, &f.APIServer},
		{&out.TLSServerName, &f.TLSServerName}, {&out.CertFile, &f.CertFile}, {&out.KeyFile, &f.KeyFile},
		{&out.CAFile, &f.CAFile}, {&out.BearerToken, &f.BearerToken}, {&out.Impersonate, &f.Impersonate},
		{&out.ImpersonateUID, &f.ImpersonateUID}, {&out.Username, &f.Username}, {&out.Password, &f.Password},
		{&out.Timeout, &f.Timeout}, {&out.ProxyURL, &f.ProxyURL},
	}
	for _, s := range strs {
		if *s.src != nil {
			v := **s.src
			*s.dst = &v
		}
	}
	bools := []struct{ dst, src **bool }{{&out.Insecure, &f.Insecure}, {&out.DisableCompression, &f.DisableCompression}}
	for _, b := range bools {
		if *b.src != nil {
			v := **b.src
			*b.dst = &v
		}
	}
	if f.ImpersonateGroup != nil {
		v := append([]string(nil), *f.ImpersonateGroup...)
		out.ImpersonateGroup = &v
	}
	if f.ImpersonateUserExtra != nil {
		v := append([]string(nil), *f.ImpersonateUserExtra...)
		out.ImpersonateUserExtra = &v
	}
	return out
}

// Ping asks the API server for its version (GET /version): whether the cluster
// can be reached with the client's credentials at all. It gives up after the
// request timeout (Config.RequestTimeout; DefaultRequestTimeout when none) or
// when ctx is done.
func (c *Client) Ping(ctx context.Context) error {
	done := make(chan error, 1)
	go func() {
		_, err := c.cs.Discovery().ServerVersion()
		done <- err
	}()
	after := c.cfg.RequestTimeout
	if after <= 0 {
		after = DefaultRequestTimeout
	}
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return Explain(err, "get", "version", "")
		}
		return nil
	case <-t.C:
		return Explain(&RequestTimeoutError{Server: c.cfg.Server, After: after}, "get", "version", "")
	case <-ctx.Done():
		return ctx.Err()
	}
}
