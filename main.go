// Command chunkview shows and repairs Helm releases stored as chunked Secrets by
// operator-framework/helm-operator-plugins and OLMv1. Without a subcommand it opens
// the interactive view; `chunkview --help` lists the commands and exit codes.
package main

import (
	"context"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/ui"
)

func main() {
	// Helm's chartutil warns through the standard logger and client-go through
	// klog; neither belongs in chunkview's output. Errors reach the user through
	// the CLI's one-line messages instead.
	log.SetOutput(io.Discard)
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)

	// CHUNKVIEW_CPUPROFILE and CHUNKVIEW_MEMPROFILE write profiles of the run,
	// for the benchmarks (see cli/profile.go).
	stopProfiles := cli.StartProfiles(os.Args[1:], os.Stderr)
	// Masked tokens from a key kept across runs, so that masked dumps compare
	// from one day to the next; without one, the process's own random key.
	if key, err := cli.LoadMaskKey(os.Getenv, os.UserConfigDir); err == nil {
		revdiff.SetMaskKey(key)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	app := &cli.App{
		ProgramName: filepath.Base(os.Args[0]),
		TUI: func(ctx context.Context, c *kube.Client, s cli.Session) error {
			return ui.Run(ctx, c, ui.Options{Demo: s.Demo, ContextName: s.Context, Contexts: s.Contexts, Watch: true})
		},
		// With CHUNKVIEW_STATS=1, requests and bytes received are counted and
		// printed to stderr at exit, for the benchmarks (see cli/stats.go).
		Stats: cli.StatsFromEnv(),
	}
	code := app.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	stopProfiles()
	cli.WriteStats(os.Stderr, app.Stats)
	os.Exit(code)
}
