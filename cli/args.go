package cli

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
)

// suggestDistance is how many edits apart a mistyped command may be from a real
// one and still be suggested ("lss": did you mean "ls"?). cobra applies its own
// default of 2 only on the path it reports unknown commands through itself, not
// to SuggestionsFor, which the root's argument check calls.
const suggestDistance = 2

// nearest is the command cobra suggests for typed that is the fewest edits
// away: cobra lists its suggestions in the commands' order, so "lss" would
// suggest "logs" before "ls". "" when it suggests none.
func nearest(cmd *cobra.Command, typed string) string {
	best, bestD := "", 0
	for _, s := range cmd.SuggestionsFor(typed) {
		if d := editDistance(typed, s); best == "" || d < bestD {
			best, bestD = s, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, as cobra measures it
// (case aside).
func editDistance(a, b string) int {
	ra, rb := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// checkReleaseArgs checks, before any request, the positional arguments of cmd
// that name a release (see completedArgs): a name that cannot be a label value
// cannot be stored either (every record carries it in its name label), and
// would otherwise reach the API server as a broken label selector.
func checkReleaseArgs(root, cmd *cobra.Command, args []string) error {
	path := strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), root.Name()), " ")
	for i, kind := range completedArgs[path] {
		if i >= len(args) || kind != argRelease {
			continue
		}
		if err := releaseNameError(args[i]); err != nil {
			return err
		}
	}
	return nil
}

// releaseNameError says what is wrong with a release name that no store can hold,
// or returns nil.
func releaseNameError(name string) error {
	if len(validation.IsValidLabelValue(name)) == 0 && name != "" {
		return nil
	}
	return usageErrorf("release name %q is not valid: a release name is lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, at most 53 characters (Helm's rule)", name)
}

// invalidFlagValue matches pflag's message for a value its type does not parse:
// `invalid argument "abc" for "--revision" flag: strconv.ParseInt: ...`.
var invalidFlagValue = regexp.MustCompile(`^invalid argument "(.*)" for "((?:-\w, )?--[\w-]+)" flag: (.*)$`)

// flagError turns pflag's errors into usage errors; a value of the wrong type is
// said in words, naming the flag and what it takes, instead of the parser's
// error (strconv.ParseInt: parsing "abc": invalid syntax).
func flagError(cmd *cobra.Command, err error) error {
	m := invalidFlagValue.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	value, names := m[1], m[2]
	long := names[strings.LastIndex(names, "--")+2:]
	want := "another value"
	if f := cmd.Flags().Lookup(long); f != nil {
		want = flagTypeWords(f.Value.Type(), long)
	}
	return usageErrorf("--%s %q: want %s", long, value, want)
}

// flagTypeWords describes what a flag of pflag type typ takes.
func flagTypeWords(typ, name string) string {
	switch {
	case name == "revision":
		return "a revision number (1, 2, ...)"
	case strings.HasPrefix(typ, "int") || strings.HasPrefix(typ, "uint"):
		return "a whole number"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	case typ == "bool":
		return "true or false"
	case typ == "duration":
		return "a duration such as 30s or 5m"
	}
	return "a value of type " + typ
}

// choiceError is what a command whose first argument picks one of its subcommands
// (get values|manifest|..., completion bash|zsh|...) says to none or an unknown
// one: cobra would print its help and exit 0, which a script takes for success.
func choiceError(what string) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		choices := strings.Join(names, ", ")
		if len(args) == 0 {
			return usageErrorf("%s takes %s: %s", cmd.CommandPath(), what, choices)
		}
		msg := fmt.Sprintf("unknown command %q for %q: %s takes %s", args[0], cmd.CommandPath(), cmd.Name(), choices)
		if s := nearest(cmd, args[0]); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return usageErrorf("%s", msg)
	}
}

// requireChoice makes cmd, which has subcommands and nothing to do itself, refuse
// a missing or unknown subcommand with a usage error.
func requireChoice(cmd *cobra.Command, what string) {
	cmd.SuggestionsMinimumDistance = suggestDistance
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = choiceError(what)
}
