package cli

import "context"

// options is a command in kubectl's shape: Complete fills in what the command
// line leaves out, Validate checks it before any request, Run does the work. The
// cobra RunE of such a command is runOptions.
type options interface {
	Complete(args []string) error
	Validate() error
	Run(ctx context.Context, r *run) error
}

// runOptions runs o's three steps in order.
func runOptions(ctx context.Context, r *run, o options, args []string) error {
	if err := o.Complete(args); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	return o.Run(ctx, r)
}
