package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// App is chunkview's command line. The zero value works; main sets TUI.
type App struct {
	// TUI opens the interactive view on a connected client; chunkview runs it when
	// no subcommand is given. Nil reports that the view is not available. main sets
	// it to the ui package's Run, which cli does not import.
	TUI func(ctx context.Context, c *kube.Client, s Session) error
	// IsTerminal reports whether stdin is a terminal a person can answer
	// confirmations on. Nil means golang.org/x/term on an *os.File. Tests replace it.
	IsTerminal func(stdin io.Reader) bool
	// Stats, when set, counts the requests of every connection made.
	Stats *kube.Stats
	// Now is the clock ages are measured against; nil means time.Now.
	Now func() time.Time
	// DemoCache is the directory --demo keeps its snapshots in (see
	// demo.Snapshots), in place of CHUNKVIEW_DEMO_CACHE's; "off" keeps none.
	// Tests set it.
	DemoCache string
	// TUITerminal reports whether the interactive view can run on the streams
	// given to Run. Nil means a check that stdout is a terminal and keys can be
	// read (tuiTerminal). Tests replace it.
	TUITerminal func(stdin io.Reader, stdout io.Writer) bool
	// ProgramName is the name chunkview was run by (the base of os.Args[0]):
	// KubectlPluginName when kubectl runs it as its plugin. main sets it.
	ProgramName string
	// Getenv reads the environment (HELM_* when run as a Helm plugin). Nil means
	// os.Getenv. Tests replace it.
	Getenv func(string) string
	// TerminalWidth is the width of the terminal stdout is, 0 when it is none:
	// ls fits its default columns to it. Nil means golang.org/x/term on an
	// *os.File. Tests replace it.
	TerminalWidth func(stdout io.Writer) int
}

func (a *App) isTerminal(in io.Reader) bool {
	if a.IsTerminal != nil {
		return a.IsTerminal(in)
	}
	return stdinIsTerminal(in)
}

// Run runs the command line args (without the program name) and returns the exit
// code. Output goes to stdout; prompts, warnings and errors to stderr.
func (a *App) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := a.Command(stdin, stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	if isFlagError(err) {
		err = fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = errors.New("interrupted: the operation may have been cut short; check with `chunkview history NAME` or `chunkview verify NAME`, with the flags of this command")
	}
	code := exitCode(err)
	if msg := message(err); msg != "" {
		if code == ExitUsage && cmd != nil {
			msg += fmt.Sprintf(" (see '%s --help')", cmd.CommandPath())
		}
		fmt.Fprintf(stderr, "Error: %s\n", msg)
	}
	return code
}

// Run runs args with a default App.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&App{}).Run(ctx, args, stdin, stdout, stderr)
}

// isFlagError recognises cobra's own errors about the command line, which it returns
// as plain errors.
func isFlagError(err error) bool {
	if errors.Is(err, ErrUsage) {
		return false
	}
	s := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand flag", "flag needs an argument", "unknown command", "bad flag syntax"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// run is one invocation: the streams, the flags and the client once connected.
type run struct {
	app    *App
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	in     *bufio.Reader

	// ctx is the running command's context, for prompts to stop at Ctrl-C.
	ctx        context.Context
	opts       *kube.Options
	flags      *pflag.FlagSet
	demo       bool
	client     *kube.Client
	explicitNS bool
	// noted are the stores whose skip was said already (noteStoreSkips).
	noted map[string]bool
	// demoRelease, when set, is the one release a --demo command is about: its
	// cluster holds that sample alone. demoLazy seeds the demo in the
	// background (the interactive view).
	demoRelease string
	demoLazy    bool
}

// now is the connected client's clock (the demo's under --demo, which starts
// at its snapshot's moment), else the App's.
func (r *run) now() time.Time {
	if r.client != nil {
		return r.client.Now()
	}
	if r.app.Now != nil {
		return r.app.Now()
	}
	return time.Now()
}

const rootLong = `chunkview shows and repairs Helm releases stored by the chunked Secrets driver of
operator-framework/helm-operator-plugins (and OLMv1's operator-controller): one index
Secret per revision plus chunk Secrets, each under the API server's 1 MiB limit.

Run without a command to open the interactive view. The commands below do the same
work without it, for scripts and terminals: each takes -o table|json|yaml.

It connects like kubectl (--kubeconfig or KUBECONFIG, --context, -n, -A). Records are
looked up by their owner label (--owner, default "helm"); --profile olmv1 sets owner
operator-controller, storage namespace olmv1-system and OLMv1's chunk limits.
--read-only makes sure nothing on the cluster changes. --demo runs on an in-memory
cluster with sample releases instead.

`

// Command builds the command tree over the given streams.
func (a *App) Command(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	r := &run{app: a, stdin: stdin, stdout: stdout, stderr: stderr, opts: kube.NewOptions()}
	r.opts.Stats = a.Stats
	r.opts.Now = a.Now
	root := &cobra.Command{
		Use:           "chunkview",
		Short:         "Inspect and repair Helm releases stored as chunked Secrets",
		Long:          rootLong + exitCodesHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          unknownCommand,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			r.ctx = cmd.Context()
			if err := r.applyPluginEnv(); err != nil {
				return err
			}
			return checkReleaseArgs(cmd.Root(), cmd, args)
		},
		RunE: r.openTUI,
	}
	root.Version = currentVersion().String()
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SuggestionsMinimumDistance = suggestDistance
	root.SetFlagErrorFunc(flagError)
	pf := root.PersistentFlags()
	r.opts.AddFlags(pf)
	r.flags = pf
	pf.BoolVar(&r.demo, "demo", false, "use an in-memory demo cluster with sample releases instead of a kubeconfig")

	r.addSubcommands(root)
	return root
}

// unknownCommand refuses an argument to chunkview itself, which takes none: a
// mistyped command, with the nearest one.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for chunkview", args[0])
	if s := nearest(cmd, args[0]); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return usageErrorf("%s", msg)
}

// openTUI is chunkview without a command: the interactive view, on a terminal.
func (r *run) openTUI(cmd *cobra.Command, _ []string) error {
	a := r.app
	if a.TUI == nil {
		return usageErrorf("the interactive view is not part of this build: run a command such as `%s` (see --help)", r.suggest("ls", ""))
	}
	if !a.canOpenTUI(r.stdin, r.stdout) {
		return noTerminalError(r.suggest("ls", ""))
	}
	r.demoLazy = true
	c, err := r.connect(cmd.Context())
	if err != nil {
		return err
	}
	return a.TUI(cmd.Context(), c, r.session(cmd.Context(), c))
}

// addSubcommands adds chunkview's commands to root, with completion and the
// plugin name it runs under; each reports its own errors, without usage.
func (r *run) addSubcommands(root *cobra.Command) {
	root.AddCommand(
		r.lsCommand(),
		r.historyCommand(),
		r.inspectCommand(),
		r.getCommand(),
		r.diffCommand(),
		r.driftCommand(),
		r.fitCommand(),
		r.statusCommand(),
		r.logsCommand(),
		r.verifyCommand(),
		r.gcCommand(),
		r.rollbackCommand(),
		r.uninstallCommand(),
		r.deleteRevisionCommand(),
		r.pruneCommand(),
		r.fixStuckCommand(),
		r.fixAPIsCommand(),
		r.versionCommand(),
	)
	r.addCompletion(root)
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		requireChoice(c, "a shell")
	}
	r.namePlugin(root)
	for _, c := range root.Commands() {
		c.SilenceErrors, c.SilenceUsage = true, true
	}
}

// Session describes what the interactive view is opened on.
type Session struct {
	// Demo is true on the in-memory demo cluster.
	Demo bool
	// Context is the kube context in use ("demo" in the demo; "" when unknown).
	Context string
	// Contexts are the contexts the view may switch to (:ctx): the
	// kubeconfig's, with the same flags, or the demo's two clusters.
	Contexts *kube.Contexts
}

// session describes the view's start on client c.
func (r *run) session(ctx context.Context, c *kube.Client) Session {
	if r.demo {
		cs := r.demoContexts(ctx, c)
		return Session{Demo: true, Context: cs.Current, Contexts: cs}
	}
	cs := r.opts.Contexts()
	return Session{Context: cs.Current, Contexts: cs}
}

// connect builds the client from the flags, once.
func (r *run) connect(ctx context.Context) (*kube.Client, error) {
	if r.client != nil {
		return r.client, nil
	}
	var (
		c   *kube.Client
		err error
	)
	// Flag values that make no sense are usage errors, told apart from failures
	// to connect before connecting.
	if _, err := r.opts.Resolve(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if o := r.opts; o.Owner != "" && o.Owner != kube.HelmOwner && len(o.Drivers) > 0 {
		for _, d := range o.Drivers {
			if strings.Contains(d, "secret") || strings.Contains(d, "configmap") {
				// Helm's drivers label every record owner=helm: --owner cannot
				// narrow them.
				fmt.Fprintf(r.stderr, "Note: --owner %s applies to chunked records; Helm's own Secrets and ConfigMaps are always owner=helm, and are read as such\n", o.Owner)
				break
			}
		}
	}
	if r.demo {
		c, err = r.demoClient(ctx)
	} else {
		c, err = r.opts.Connect()
	}
	if err != nil {
		return nil, err
	}
	r.client = c
	return c, nil
}

// locate returns the namespace whose records hold release name. Without a storage
// namespace, it finds the one namespace that holds the release in view: of the
// release namespace -n names, or with -A of any.
func (r *run) locate(ctx context.Context, c *kube.Client, name string) (string, error) {
	ns, _, err := r.locateStore(ctx, c, name)
	return ns, err
}

// locateStore finds, as locate does, the namespace whose records hold release
// name, and the store that holds it when exactly one does ("" otherwise: the
// command that follows asks for --driver if two do).
func (r *run) locateStore(ctx context.Context, c *kube.Client, name string) (string, string, error) {
	l, err := r.locateRelease(ctx, c, name)
	return l.ns, l.store, err
}

// located is where a release was found: the namespace its records were looked
// up in, the one store that holds it (or ""), and its revisions from the listing
// that found it, when the listing told them (nil otherwise).
type located struct {
	ns, store string
	rows      []kube.RevisionRow
}

// locateRelease is locateStore, with the release's revisions when the listing
// that found it in one store and one namespace gave them: a command by name plans
// from those, without listing the release again.
func (r *run) locateRelease(ctx context.Context, c *kube.Client, name string) (located, error) {
	cfg := c.Config()
	if len(cfg.Drivers) == 1 && cfg.Drivers[0] == kube.DriverChunked && cfg.StorageNamespace != "" {
		// One store, one place for its records: nothing to look for.
		return located{ns: cfg.Namespace, store: kube.DriverChunked}, nil
	}
	rows, err := c.ReleasesNamed(ctx, name)
	held := map[string]bool{}
	for _, row := range rows {
		if row.Latest.Name == name {
			held[row.Latest.Driver] = true
		}
	}
	l := located{}
	if len(held) == 1 {
		for d := range held {
			l.store = d
		}
	}
	if cfg.StorageNamespace != "" && l.store != kube.DriverSecret && l.store != kube.DriverConfigMap {
		l.ns = cfg.Namespace
	} else {
		l.ns, err = r.locateIn(rows, err, cfg, name)
		if err != nil {
			return l, err
		}
	}
	if l.store == "" || err != nil {
		return l, err
	}
	// The rows of the one release found: the same store, in the storage
	// namespace its records are looked up in.
	var match []kube.ReleaseRow
	for _, row := range rows {
		if row.Latest.Name == name && row.Latest.Driver == l.store && row.Latest.StorageNamespace == c.Config().StorageNamespaceFor(l.store, l.ns) {
			match = append(match, row)
		}
	}
	if len(match) == 1 && len(match[0].History) == match[0].Revisions {
		l.rows = match[0].History
	}
	return l, err
}

// locateIn is locate over a listing already made.
func (r *run) locateIn(rows []kube.ReleaseRow, err error, cfg kube.Config, name string) (string, error) {
	if err != nil && !errors.Is(err, kube.ErrPartial) {
		if !cfg.AllNamespaces {
			// Where the records of a release usually are: the call that
			// follows says what went wrong, if anything.
			return cfg.Namespace, nil
		}
		return "", err
	}
	var found []string
	for _, row := range rows {
		if row.Latest.Name == name {
			found = append(found, row.Latest.StorageNamespace)
		}
	}
	sort.Strings(found)
	// A name two stores hold in one namespace is one place: History asks which
	// store.
	found = slices.Compact(found)
	if !cfg.AllNamespaces {
		// -n is the release namespace: its records may live in another one.
		if len(found) == 1 {
			return found[0], nil
		}
		return cfg.Namespace, nil
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w: no release %q with owner %q in any namespace; if it was stored by another tool, try --owner, --storage-namespace or --profile olmv1",
			kube.ErrNotFound, name, cfg.Owner)
	case 1:
		return found[0], nil
	}
	return "", usageErrorf("release %q exists in namespaces %s: pick one with -n", name, strings.Join(found, ", "))
}

// connectRelease connects and finds release name: the namespace its records are
// looked up in, and, when the listing that found it told them, its revisions.
// The client it returns talks to the one store that holds the release.
func (r *run) connectRelease(ctx context.Context, name string) (*kube.Client, located, error) {
	if r.client == nil {
		r.demoRelease = name // the demo needs that release alone
	}
	c, err := r.connect(ctx)
	if err != nil {
		return nil, located{}, err
	}
	l, err := r.locateRelease(ctx, c, name)
	if err != nil {
		return nil, l, err
	}
	if l.store != "" {
		c = c.WithDrivers(l.store)
	}
	return c, l, nil
}

// connectReleaseRows is connectRelease, then the release's revisions: the
// rows the locating read, else read from its store.
func (r *run) connectReleaseRows(ctx context.Context, name string) (*kube.Client, []kube.RevisionRow, error) {
	c, l, err := r.connectRelease(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	rows := l.rows
	if rows == nil {
		if rows, err = c.Versions(ctx, l.ns, name); err != nil {
			return nil, nil, err
		}
	}
	return c, rows, nil
}

// connectTo connects and finds the namespace whose records hold release name.
func (r *run) connectTo(ctx context.Context, name string) (*kube.Client, string, error) {
	if r.client == nil {
		r.demoRelease = name
	}
	c, err := r.connect(ctx)
	if err != nil {
		return nil, "", err
	}
	ns, store, err := r.locateStore(ctx, c, name)
	if err != nil {
		return nil, "", err
	}
	if store != "" {
		// The one store that holds it: every step after this talks to it alone.
		c = c.WithDrivers(store)
	}
	return c, ns, nil
}

// suggest is the command line of a chunkview command to advise, with the flags
// of this run that it needs (kube.Config.Suggest), whether or not it connected.
func (r *run) suggest(verb, name string, args ...string) string {
	if r.client != nil {
		return r.client.Config().Suggest(verb, name, args...)
	}
	cfg, _ := r.opts.Resolve()
	cfg.Demo = r.demo
	if f := r.opts.Flags; f.Namespace != nil {
		cfg.Namespace = *f.Namespace
	}
	if f := r.opts.Flags; f.Context != nil {
		cfg.Context = *f.Context
	}
	return cfg.Suggest(verb, name, args...)
}

// refuseReadOnly refuses a change up front under --read-only, before any request.
func (r *run) refuseReadOnly(what string) error {
	if r.opts.ReadOnly {
		return fmt.Errorf("%w: %s is disabled (started with --read-only); nothing was changed", kube.ErrReadOnly, what)
	}
	return nil
}

// exactArgs is cobra.ExactArgs with a usage error that names the arguments.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s takes %s (got %s)", cmd.Name(), names, human.Plural(len(args), "argument", "arguments"))
		}
		return nil
	}
}

// rangeArgs is cobra.RangeArgs with a usage error that names the arguments.
func rangeArgs(min, max int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || len(args) > max {
			return usageErrorf("%s takes %s (got %d arguments)", cmd.Name(), names, len(args))
		}
		return nil
	}
}

// revisionArg parses a revision number argument.
func revisionArg(s, what string) (int, error) {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 || fmt.Sprint(n) != strings.TrimSpace(s) {
		return 0, usageErrorf("%s %q is not a revision number (1, 2, ...)", what, s)
	}
	return n, nil
}
