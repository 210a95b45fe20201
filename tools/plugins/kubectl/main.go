// Command kubectl is kubectl's command tree from k8s.io/kubectl, the library
// kubectl itself is built on, for the packaging test: its plugin mechanism (a
// command it does not know runs kubectl-NAME from PATH) is the library's own.
package main

import (
	"os"

	"k8s.io/kubectl/pkg/cmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	if err := cmd.NewDefaultKubectlCommand().Execute(); err != nil {
		cmdutil.CheckErr(err)
		os.Exit(1)
	}
}
