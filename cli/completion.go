package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// argKind is what one positional argument of a command names.
type argKind int

const (
	argRelease argKind = iota
	argRevision
)

// completedArgs are the positional arguments of each command, for completion, by
// the command's path below the root.
var completedArgs = map[string][]argKind{
	"history":         {argRelease},
	"inspect":         {argRelease},
	"verify":          {argRelease},
	"uninstall":       {argRelease},
	"fix-stuck":       {argRelease},
	"prune":           {argRelease},
	"rollback":        {argRelease, argRevision},
	"delete-revision": {argRelease, argRevision},
	"diff":            {argRelease, argRevision, argRevision},
	"drift":           {argRelease},
	"status":          {argRelease},
	"logs":            {argRelease},
	"get values":      {argRelease},
	"get manifest":    {argRelease},
	"get notes":       {argRelease},
	"get hooks":       {argRelease},
	"get metadata":    {argRelease},
	"get all":         {argRelease},
}

// addCompletion lists the completion command and completes, from the cluster,
// release names, revisions, namespaces and contexts, and the -o values.
func (r *run) addCompletion(root *cobra.Command) {
	root.CompletionOptions.HiddenDefaultCmd = false
	_ = root.RegisterFlagCompletionFunc("namespace", r.completeNamespaces)
	_ = root.RegisterFlagCompletionFunc("context", r.completeContexts)
	_ = root.RegisterFlagCompletionFunc("profile", fixed("default", "olmv1"))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), root.Name()), " ")
		if kinds, ok := completedArgs[path]; ok && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = r.completeArgs(kinds)
		}
		if f := c.Flags().Lookup("output"); f != nil {
			values := []string{FormatTable, FormatJSON, FormatYAML}
			switch {
			case strings.Contains(f.Usage, FormatWide+", "+FormatName):
				values = []string{FormatTable, FormatWide, FormatName, FormatJSON, FormatYAML}
			case strings.Contains(f.Usage, FormatWide):
				values = []string{FormatTable, FormatWide, FormatJSON, FormatYAML}
			}
			_ = c.RegisterFlagCompletionFunc("output", fixed(values...))
		}
		if c.Flags().Lookup("revision") != nil {
			_ = c.RegisterFlagCompletionFunc("revision", func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
				if len(args) == 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return r.completeRevisions(cmd, args[0])
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func fixed(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeArgs completes the next positional argument of a command whose
// arguments are kinds.
func (r *run) completeArgs(kinds []argKind) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) >= len(kinds) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		switch kinds[len(args)] {
		case argRelease:
			return r.completeReleases(cmd)
		case argRevision:
			return r.completeRevisions(cmd, args[0])
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeReleases lists the release names in view, each with its namespace and
// status as the description.
func (r *run) completeReleases(cmd *cobra.Command) ([]string, cobra.ShellCompDirective) {
	c, err := r.connect(cmd.Context())
	if err != nil {
		return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
	}
	rows, err := c.Releases(cmd.Context())
	if err != nil && len(rows) == 0 {
		return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	var out []string
	for _, rr := range rows {
		l := rr.Latest
		if seen[l.Name] {
			continue
		}
		seen[l.Name] = true
		ns := l.StorageNamespace
		if l.Known && l.Summary.Namespace != "" {
			ns = l.Summary.Namespace
		}
		out = append(out, fmt.Sprintf("%s\t%s, %s", l.Name, ns, l.Status))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeRevisions lists the revisions of release name, newest first, each with
// its status.
func (r *run) completeRevisions(cmd *cobra.Command, name string) ([]string, cobra.ShellCompDirective) {
	c, ns, err := r.connectTo(cmd.Context(), name)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
	}
	rows, err := c.History(cmd.Context(), ns, name)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
	}
	out := make([]string, 0, len(rows))
	for i := len(rows) - 1; i >= 0; i-- {
		out = append(out, fmt.Sprintf("%d\t%s", rows[i].Revision, rows[i].Status))
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// completeNamespaces lists the cluster's namespaces, or, when that is forbidden,
// the release namespaces in view.
func (r *run) completeNamespaces(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	c, err := r.connect(cmd.Context())
	if err != nil {
		return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	if list, err := c.Clientset().CoreV1().Namespaces().List(cmd.Context(), metav1.ListOptions{}); err == nil {
		for _, n := range list.Items {
			seen[n.Name] = true
		}
	}
	if rows, _ := c.WithNamespace("", true).Releases(cmd.Context()); len(rows) > 0 {
		for _, rr := range rows {
			seen[releaseItem(rr).Namespace] = true
		}
	}
	return sortedKeys(seen), cobra.ShellCompDirectiveNoFileComp
}

// completeContexts lists the kubeconfig's contexts.
func (r *run) completeContexts(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	raw, err := r.opts.Flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	for name := range raw.Contexts {
		seen[name] = true
	}
	return sortedKeys(seen), cobra.ShellCompDirectiveNoFileComp
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
