// Command mutants checks that chunkview's tests catch the loss of its guarantees:
// for each mutant of its table (table.go), a one-line change that breaks one
// guarantee, it runs the tests named to catch it against the mutated code and
// reports whether they failed (the mutant is killed) or passed (it survived), as a
// markdown table.
//
// The tree is never written: each mutated file goes to a scratch folder and the
// go command reads it in place of the original through -overlay, so an
// interrupted run (Ctrl-C) leaves nothing to restore. Before the mutants, each
// test selection runs once on the code as it is, and must pass: a failing test
// kills every mutant, and proves nothing.
//
// With -packages, a mutant runs against the whole packages its targets are in
// (every test of each, -failfast), not only the tests it names: that measures
// what the whole suite guards, as an audit that does not trust the table's
// names would, where the default measures whether the named tests do.
//
//	go run ./hack/mutants                 # every mutant (make mutants)
//	go run ./hack/mutants -run 'watch|health' -o /tmp/mutants.md
//	go run ./hack/mutants -packages       # against whole packages (make mutants MUTANTS_FLAGS=-packages)
//	go run ./hack/mutants -list           # the table, without running it
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// mutant is one entry of the table.
type mutant struct {
	// Name identifies the mutant in reports and in -run.
	Name string
	// File is the file to mutate, from the module's root.
	File string
	// Find is the line to replace, without its indentation; it must occur
	// exactly once in File, or the mutant is reported stale (the code moved:
	// update the entry).
	Find string
	// Replace is the line put in its place, indented as Find was.
	Replace string
	// Guarantee is what the mutant breaks, in the README's or an issue's words.
	Guarantee string
	// Kill are the tests that must fail on it.
	Kill []target
	// Equivalent, when set, says why no test can kill the mutant (the change
	// keeps every behaviour the guarantee names): it is listed, not run, and
	// left out of the score.
	Equivalent string
}

// target is one go test run: a package and a -run selection; an empty Run runs
// every test of the package.
type target struct {
	Pkg string
	Run string
}

func (t target) String() string {
	if t.Run == "" {
		return t.Pkg + " (whole package)"
	}
	return t.Pkg + " -run '" + t.Run + "'"
}

// wholePackages returns one target per package of ts, each running every test of
// its package, in the order the packages first appear.
func wholePackages(ts []target) []target {
	var out []target
	for _, t := range ts {
		if !slices.ContainsFunc(out, func(o target) bool { return o.Pkg == t.Pkg }) {
			out = append(out, target{Pkg: t.Pkg})
		}
	}
	return out
}

// outcome of a mutant.
const (
	killed   = "killed"
	survived = "SURVIVED"
	stale    = "stale"       // Find no longer occurs once: the table needs updating
	invalid  = "invalid"     // the mutated code does not build
	unproven = "no baseline" // a named test fails, or matches nothing, on the code as it is
	equiv    = "equivalent"  // no test can kill it: see Equivalent
)

type result struct {
	m       mutant
	outcome string
	// by says, for each target, what it did with the mutant.
	by     []string
	detail string
}

func main() {
	var (
		runPat  = flag.String("run", "", "run only the mutants whose name matches this regexp")
		out     = flag.String("o", "", "also write the report to this file")
		list    = flag.Bool("list", false, "print the table without running it")
		timeout = flag.Duration("timeout", 20*time.Minute, "go test -timeout for each run")
		verbose = flag.Bool("v", false, "print each go test's output")
		all     = flag.Bool("all", false, "run every target of a mutant, not only up to the first that kills it")
		pkgs    = flag.Bool("packages", false, "run each mutant against every test of the packages its targets are in, not only the tests it names")
	)
	flag.Parse()
	if *pkgs && *timeout == 20*time.Minute {
		// A whole package runs longer than a selection (cli and kube/ops take
		// 5 to 8 minutes on 2 cores, longer under a mutant that slows them).
		*timeout = 45 * time.Minute
	}
	if err := run(*runPat, *out, *list, *all, *pkgs, *timeout, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

func run(runPat, out string, list, all, pkgs bool, timeout time.Duration, verbose bool) error {
	sel, err := regexp.Compile(runPat)
	if err != nil {
		return fmt.Errorf("-run %q: %w", runPat, err)
	}
	var todo []mutant
	for _, m := range mutants {
		if sel.MatchString(m.Name) {
			todo = append(todo, m)
		}
	}
	if len(todo) == 0 {
		return fmt.Errorf("no mutant matches -run %q", runPat)
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if list {
		fmt.Print(tableOf(todo, nil))
		for _, m := range todo {
			if err := m.applies(root); err != nil {
				fmt.Fprintf(os.Stderr, "stale: %s: %v\n", m.Name, err)
			}
		}
		return nil
	}
	scratch, err := os.MkdirTemp("", "chunkview-mutants-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &runner{root: root, scratch: scratch, timeout: timeout, verbose: verbose, all: all, packages: pkgs, baseline: map[string]error{}}
	if !pkgs {
		// Whole packages have one baseline each already, run when a mutant
		// first needs it.
		r.baselines(ctx, todo)
	}

	var results []result
	for i, m := range todo {
		fmt.Fprintf(os.Stderr, "[%d/%d] %s (%s)\n", i+1, len(todo), m.Name, m.File)
		res := r.check(ctx, i, m)
		if ctx.Err() != nil {
			return errors.New("interrupted; the tree was never changed")
		}
		fmt.Fprintf(os.Stderr, "    %s %s\n", res.outcome, strings.Join(res.by, "; "))
		results = append(results, res)
	}
	report := tableOf(todo, results)
	if pkgs {
		report = "Mode: -packages (every test of each target's package).\n\n" + report
	}
	fmt.Print(report)
	if out != "" {
		return os.WriteFile(out, []byte(report), 0o644)
	}
	return nil
}

type runner struct {
	root, scratch string
	timeout       time.Duration
	verbose       bool
	all           bool
	// packages runs every test of the targets' packages (-packages).
	packages bool
	// baseline holds, for each target, how it did on the code as it is.
	baseline map[string]error
}

// check applies m through an overlay and runs its targets.
func (r *runner) check(ctx context.Context, i int, m mutant) result {
	res := result{m: m}
	if m.Equivalent != "" {
		res.outcome, res.detail = equiv, m.Equivalent
		return res
	}
	src, err := os.ReadFile(filepath.Join(r.root, m.File))
	if err != nil {
		res.outcome, res.detail = stale, err.Error()
		return res
	}
	mutated, err := apply(src, m.Find, m.Replace)
	if err != nil {
		res.outcome, res.detail = stale, err.Error()
		return res
	}
	dir := filepath.Join(r.scratch, fmt.Sprint(i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		res.outcome, res.detail = invalid, err.Error()
		return res
	}
	file := filepath.Join(dir, filepath.Base(m.File))
	overlay := filepath.Join(dir, "overlay.json")
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(r.root, m.File): file}})
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		res.outcome, res.detail = invalid, err.Error()
		return res
	}
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		res.outcome, res.detail = invalid, err.Error()
		return res
	}

	anyKilled, allProven := false, true
	kill := m.Kill
	if r.packages {
		kill = wholePackages(kill)
	}
	for _, t := range kill {
		if err := r.base(ctx, t); err != nil {
			allProven = false
			res.by = append(res.by, t.String()+": no baseline ("+err.Error()+")")
			continue
		}
		verdict, err := r.goTest(ctx, t, overlay)
		switch verdict {
		case testsFailed:
			anyKilled = true
			res.by = append(res.by, t.String()+": killed")
			if !r.all {
				return r.verdict(res, anyKilled, allProven)
			}
		case testsPassed:
			res.by = append(res.by, t.String()+": passed")
		case buildFailed:
			res.outcome, res.detail = invalid, firstLines(err.Error(), 3)
			res.by = append(res.by, t.String()+": does not build")
			return res
		default:
			allProven = false
			res.by = append(res.by, t.String()+": "+err.Error())
		}
	}
	return r.verdict(res, anyKilled, allProven)
}

// verdict sets res's outcome from what its targets did.
func (r *runner) verdict(res result, anyKilled, allProven bool) result {
	switch {
	case anyKilled:
		res.outcome = killed
	case !allProven:
		res.outcome = unproven
	default:
		res.outcome = survived
	}
	return res
}

// applies reports whether m's line occurs once in its file.
func (m mutant) applies(root string) error {
	src, err := os.ReadFile(filepath.Join(root, m.File))
	if err != nil {
		return err
	}
	_, err = apply(src, m.Find, m.Replace)
	return err
}

// baselines runs, for each package the mutants name, all its selections at once
// on the code as it is: one build and one test cluster per package instead of
// one per selection. When that run passes, every selection of it is proven; when
// it fails, each selection is run alone when a mutant needs it (base).
func (r *runner) baselines(ctx context.Context, ms []mutant) {
	var pkgs []string
	runs := map[string][]string{}
	for _, m := range ms {
		if m.Equivalent != "" {
			continue
		}
		for _, t := range m.Kill {
			if _, ok := runs[t.Pkg]; !ok {
				pkgs = append(pkgs, t.Pkg)
			}
			if !slices.Contains(runs[t.Pkg], t.Run) {
				runs[t.Pkg] = append(runs[t.Pkg], t.Run)
			}
		}
	}
	for _, pkg := range pkgs {
		if ctx.Err() != nil {
			return
		}
		sels := runs[pkg]
		if len(sels) < 2 {
			continue
		}
		alts := make([]string, len(sels))
		for i, s := range sels {
			alts[i] = "(?:" + s + ")"
		}
		t := target{Pkg: pkg, Run: strings.Join(alts, "|")}
		fmt.Fprintf(os.Stderr, "baseline %s: %d selections at once\n", pkg, len(sels))
		if v, err := r.goTest(ctx, t, ""); v != testsPassed {
			if err == nil {
				err = errors.New("a test fails")
			}
			fmt.Fprintf(os.Stderr, "    did not pass (%s): each selection runs alone\n", firstLines(err.Error(), 2))
			continue
		}
		for _, s := range sels {
			r.baseline[target{Pkg: pkg, Run: s}.String()] = nil
		}
	}
}

// apply replaces the one line of src that reads find, indentation aside.
func apply(src []byte, find, replace string) ([]byte, error) {
	lines := strings.SplitAfter(string(src), "\n")
	at := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == find {
			if at >= 0 {
				return nil, fmt.Errorf("the line %q occurs more than once (lines %d and %d): make Find longer", find, at+1, i+1)
			}
			at = i
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("the line %q is not in the file: the code moved, update the entry", find)
	}
	l := lines[at]
	indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
	eol := ""
	if strings.HasSuffix(l, "\n") {
		eol = "\n"
	}
	lines[at] = indent + replace + eol
	return []byte(strings.Join(lines, "")), nil
}

// base runs t once on the code as it is, and remembers how it did.
func (r *runner) base(ctx context.Context, t target) error {
	k := t.String()
	if err, ok := r.baseline[k]; ok {
		return err
	}
	fmt.Fprintf(os.Stderr, "    baseline %s\n", k)
	verdict, err := r.goTest(ctx, t, "")
	switch verdict {
	case testsPassed:
		err = nil
	case testsFailed:
		err = errors.New("fails on the code as it is")
	}
	r.baseline[k] = err
	return err
}

type verdict int

const (
	testsPassed verdict = iota
	testsFailed
	buildFailed
	noTests
	interrupted
)

// goTest runs go test for t, through overlay when set. It runs in a process
// group of its own, so that a test cluster the tests started goes with it when
// the run is interrupted.
func (r *runner) goTest(ctx context.Context, t target, overlay string) (verdict, error) {
	args := []string{"test", "-count=1", "-timeout", r.timeout.String()}
	if t.Run != "" {
		args = append(args, "-run", t.Run)
	} else if overlay != "" {
		// A whole package under a mutant: its first failure decides.
		args = append(args, "-failfast")
	}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	args = append(args, t.Pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "HELM_DRIVER=")
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		cmd.Env = append(cmd.Env, "KUBEBUILDER_ASSETS="+filepath.Join(r.root, "bin"))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var buf bytes.Buffer
	var w io.Writer = &buf
	if r.verbose {
		w = io.MultiWriter(&buf, os.Stderr)
	}
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	outText := buf.String()
	switch {
	case ctx.Err() != nil:
		return interrupted, ctx.Err()
	case strings.Contains(outText, "[build failed]") || strings.Contains(outText, "[setup failed]"):
		return buildFailed, errors.New(outText)
	case strings.Contains(outText, "no tests to run") || strings.Contains(outText, "[no test files]"):
		return noTests, fmt.Errorf("-run %q matches no test in %s", t.Run, t.Pkg)
	case err == nil:
		return testsPassed, nil
	case strings.Contains(outText, "--- FAIL") || strings.Contains(outText, "FAIL\t"):
		return testsFailed, nil
	}
	return buildFailed, fmt.Errorf("go test: %v: %s", err, firstLines(outText, 5))
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " / ")
}

// moduleRoot returns the folder of the main module's go.mod.
func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(b))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the chunkview module")
	}
	return filepath.Dir(gomod), nil
}
