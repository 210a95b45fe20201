package cli

import (
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// KubectlPluginName is the name kubectl finds chunkview by on PATH: `kubectl
// chunkview ...` runs the executable kubectl-chunkview (krew installs it so).
const KubectlPluginName = "kubectl-chunkview"

// HelmPluginEnv is set by Helm (3 and 4) in the environment of a plugin it runs:
// `helm chunkview ...` runs chunkview with HELM_PLUGIN_NAME=chunkview.
const HelmPluginEnv = "HELM_PLUGIN_NAME"

// helmPluginFlags are the connection settings Helm passes a plugin in its
// environment, with the chunkview flag each stands for. Helm takes its own
// global flags (-n, --kube-context, --kubeconfig, ...) out of a plugin's
// arguments, wherever they were typed, and hands them on only this way, so
// `helm chunkview ls -n web` reaches chunkview as `ls` and HELM_NAMESPACE=web.
// KUBECONFIG needs nothing: Helm sets it for --kubeconfig, and chunkview reads
// it as kubectl does.
var helmPluginFlags = []struct{ env, flag string }{
	{"HELM_NAMESPACE", "namespace"},
	{"HELM_KUBECONTEXT", "context"},
	{"HELM_KUBEASUSER", "as"},
	{"HELM_KUBEASGROUPS", "as-group"},
	{"HELM_KUBEAPISERVER", "server"},
	{"HELM_KUBETOKEN", "token"},
	{"HELM_KUBECAFILE", "certificate-authority"},
	{"HELM_KUBEINSECURE_SKIP_TLS_VERIFY", "insecure-skip-tls-verify"},
	{"HELM_KUBETLS_SERVER_NAME", "tls-server-name"},
}

func (a *App) getenv(key string) string {
	if a.Getenv != nil {
		return a.Getenv(key)
	}
	return os.Getenv(key)
}

// helmPlugin reports whether Helm runs chunkview as its plugin.
func (r *run) helmPlugin() bool { return r.app.getenv(HelmPluginEnv) != "" }

// applyPluginEnv sets, when Helm runs chunkview as a plugin, the connection flags
// from Helm's settings, as helm's own commands would use them; a flag given on
// chunkview's command line wins. Helm always passes a namespace (the context's,
// else "default"), as `helm ls` looks there; with -A it is not used. In --demo,
// whose clusters have nothing in "default", that one namespace is not used
// either: `helm chunkview --demo ls` shows every sample, `helm -n web chunkview
// --demo ls` those in web.
func (r *run) applyPluginEnv() error {
	if !r.helmPlugin() || r.flags == nil {
		return nil
	}
	for _, p := range helmPluginFlags {
		v := r.app.getenv(p.env)
		f := r.flags.Lookup(p.flag)
		if v == "" || f == nil || r.flags.Changed(p.flag) {
			continue
		}
		switch {
		case p.flag == "insecure-skip-tls-verify" && v != "true":
			continue
		case p.flag == "namespace" && (r.opts.AllNamespaces || (r.demo && v == "default")):
			continue
		}
		values := []string{v}
		if p.flag == "as-group" {
			values = strings.Split(v, ",")
		}
		for _, val := range values {
			if err := r.flags.Set(p.flag, val); err != nil {
				return usageErrorf("%s=%q (from helm) is not a valid --%s: %v", p.env, v, p.flag, err)
			}
		}
	}
	return nil
}

// namePlugin makes help and usage name the command as it was typed: `kubectl
// chunkview` when kubectl runs chunkview as its plugin kubectl-chunkview, `helm
// chunkview` when Helm does.
func (r *run) namePlugin(root *cobra.Command) {
	name := ""
	switch {
	case r.app.ProgramName == KubectlPluginName:
		name = "kubectl chunkview"
	case r.helmPlugin():
		name = "helm " + r.app.getenv(HelmPluginEnv)
	}
	if name == "" {
		return
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = name
}
