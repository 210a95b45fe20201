package ui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"

	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/theme"
)

// cmdLine is k9s's ":" command mode: a line typed at the bottom of the screen.
// It knows :ns NAME (or :ns all), :ctx NAME (or :ctx alone, for the picker), :log
// (the message log) and :q.
type cmdLine struct {
	input  textinput.Model
	active bool
}

func newCmdLine() cmdLine {
	in := theme.NewTextInput()
	in.Prompt = ":"
	in.Placeholder = "ns NAME · ns all · ctx · ctx NAME · log · q"
	return cmdLine{input: in}
}

// cmdResult is what a command asks of the program.
type cmdResult struct {
	quit bool
	ns   *common.NamespaceChosenMsg
	// ctx is the context to switch to; pickCtx opens the picker.
	ctx     *common.ContextChosenMsg
	pickCtx bool
	// log opens the message log.
	log bool
	// status is the line to show, and err whether it is an error.
	status string
	err    bool
}

// parseCommand reads one command line.
func parseCommand(line string) cmdResult {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return cmdResult{}
	}
	switch cmd, args := fields[0], fields[1:]; cmd {
	case "q", "q!", "quit", "qa", "wq":
		return cmdResult{quit: true}
	case "ns", "namespace", "namespaces":
		switch {
		case len(args) != 1:
			return cmdResult{status: "usage: :ns NAME, or :ns all for every namespace", err: true}
		case args[0] == "all" || args[0] == "-A" || args[0] == "*":
			return cmdResult{ns: &common.NamespaceChosenMsg{All: true}}
		}
		return cmdResult{ns: &common.NamespaceChosenMsg{Ns: args[0]}}
	case "ctx", "context", "contexts":
		switch len(args) {
		case 0:
			return cmdResult{pickCtx: true}
		case 1:
			return cmdResult{ctx: &common.ContextChosenMsg{Name: args[0]}}
		}
		return cmdResult{status: "usage: :ctx NAME, or :ctx alone to pick one", err: true}
	case "log", "messages", "messages!":
		return cmdResult{log: true}
	case "help", "h":
		return cmdResult{status: "Commands: :ns NAME (or :ns all) · :ctx (or :ctx NAME) · :log (every message, whole) · :q", err: false}
	}
	return cmdResult{status: "unknown command :" + fields[0] + " (try :ns NAME, :ns all, :ctx, :log, :q)", err: true}
}
