#!/usr/bin/env bash
# plugin-test.sh BIN runs chunkview as the plugin of the real clients, built from
# their modules into BIN (make plugintools): `helm chunkview` with Helm 3 and with
# Helm 4 (the plugin.yaml of Helm 3, which Helm 4 loads as cli/v1, and Helm 4's
# own format), and `kubectl chunkview` (BIN/kubectl-chunkview found on PATH; with
# krew, when BIN/krew was built, installed from the krew manifest and an archive).
# Each plugin is installed into a directory of its own under a temporary HOME, and
# run on the demo cluster. On failure it prints what was run and what came out,
# and exits 1.
set -euo pipefail

if [[ $# -ne 1 ]]; then
	echo "usage: $0 BIN" >&2
	exit 2
fi
bin=$(cd "$1" && pwd)
for b in chunkview kubectl-chunkview helm3 helm4 kubectl; do
	if [[ ! -x $bin/$b ]]; then
		echo "$0: $bin/$b is missing: run make plugintools plugins first" >&2
		exit 2
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/chunkview-plugins.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Nothing of the user's: no kubeconfig, no helm configuration, no plugins.
export HOME=$tmp/home CHUNKVIEW_DEMO_OPERATOR=off
unset KUBECONFIG HELM_DRIVER HELM_NAMESPACE HELM_KUBECONTEXT XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME
mkdir -p "$HOME"

npassed=0
out=$tmp/out
err=$tmp/err

fail() {
	echo "FAIL [$step]: $*" >&2
	echo "----- stdout -----" >&2
	cat "$out" >&2 || true
	echo "----- stderr -----" >&2
	cat "$err" >&2 || true
	exit 1
}
passed() {
	npassed=$((npassed + 1))
	printf '  ok  %s\n' "$step"
}

# run WANT_CODE CMD...: runs CMD, keeping its output, and wants its exit code.
run() {
	local want=$1
	shift
	set +e
	"$@" >"$out" 2>"$err"
	local code=$?
	set -e
	((code == want)) || fail "$* exited $code, want $want"
}

# has TEXT...: the last command's stdout holds every TEXT.
has() {
	for want in "$@"; do
		grep -qF -- "$want" "$out" || fail "stdout lacks \"$want\""
	done
}

# demo_checks NAME CLIENT: what chunkview does as the plugin of CLIENT (the helm
# or kubectl binary), whose users know it as NAME, run on the demo.
demo_checks() {
	local name=$1
	shift
	run 0 "$@" chunkview --demo ls
	has NAMESPACE podinfo ledger loki-stack redis ingress-nginx broken
	run 0 "$@" chunkview --demo history podinfo -o json
	has '"release": "podinfo"' '"revision": 4'
	# verify's exit code (4: problems found) comes through the client.
	run 4 "$@" chunkview --demo verify
	has "missing-chunk"
	run 0 "$@" chunkview --help
	has "$name chunkview [flags]" "$name chunkview [command]"
}

# helm_home NAME: a Helm home of its own. HELM_PLUGINS is where Helm's data home
# keeps plugins: Helm 4's `plugin install` writes there whatever HELM_PLUGINS
# says, and lists from HELM_PLUGINS.
helm_home() {
	export HELM_CONFIG_HOME=$tmp/$1/config HELM_CACHE_HOME=$tmp/$1/cache HELM_DATA_HOME=$tmp/$1/data
	export HELM_PLUGINS=$HELM_DATA_HOME/plugins
}

for h in helm3 helm4; do
	helm_home "$h"
	helm=$bin/$h

	step="$h: helm plugin install"
	run 0 "$helm" plugin install "$bin/plugins/helm/chunkview"
	run 0 "$helm" plugin list
	has chunkview 0.1.0
	if [[ $h == helm4 ]]; then
		# Helm 4 loads Helm 3's plugin.yaml as a plugin of its cli/v1 type.
		has cli/v1
	fi
	passed

	step="$h: helm chunkview on the demo"
	demo_checks helm "$helm"
	passed

	step="$h: helm's -n reaches chunkview"
	# Helm takes -n out of a plugin's arguments, wherever it is typed, and
	# hands it on as HELM_NAMESPACE.
	run 0 "$helm" -n payments chunkview --demo ls -q
	[[ $(tr '\n' ' ' <"$out") == "fraud-model ledger payments-api " ]] || fail "helm -n payments: $(cat "$out")"
	run 0 "$helm" chunkview --demo ls -q -n web
	[[ $(cat "$out") == redis ]] || fail "-n web after the command: $(cat "$out")"
	passed
done

step="helm4: Helm 4's own plugin.yaml (apiVersion v1, cli/v1)"
helm_home helm4-v1
run 0 "$bin/helm4" plugin install "$bin/plugins/helm4/chunkview"
run 0 "$bin/helm4" plugin list
has chunkview cli/v1
grep -E '^chunkview[[:space:]].*cli/v1[[:space:]]+v1[[:space:]]' "$out" >/dev/null || fail "not listed as an apiVersion v1 plugin"
demo_checks helm "$bin/helm4"
passed

step="kubectl: kubectl-chunkview on PATH"
mkdir -p "$tmp/path"
ln -s "$bin/kubectl-chunkview" "$tmp/path/kubectl-chunkview"
export PATH=$tmp/path:$PATH
run 0 "$bin/kubectl" plugin list
has "$tmp/path/kubectl-chunkview"
demo_checks kubectl "$bin/kubectl"
passed

if [[ -x $bin/krew ]]; then
	step="krew: install from the manifest and an archive"
	os=$(go env GOOS) arch=$(go env GOARCH)
	tar -czf "$tmp/kubectl-chunkview.tar.gz" -C "$bin" kubectl-chunkview
	sha=$(sha256sum "$tmp/kubectl-chunkview.tar.gz" | cut -d' ' -f1)
	# The template as krew-release-bot fills it for a tag, with this archive.
	sed -e 's/{{ \.TagName }}/v0.1.0/g' \
		-e "s|{{addURIAndSha \"\\([^\"]*\\)\" \\.TagName }}|uri: \\1\\n      sha256: $sha|" \
		"$(dirname "$0")/../packaging/krew/chunkview.yaml" >"$tmp/chunkview.yaml"
	export KREW_ROOT=$tmp/krew
	run 0 "$bin/krew" install --manifest="$tmp/chunkview.yaml" --archive="$tmp/kubectl-chunkview.tar.gz"
	rm "$tmp/path/kubectl-chunkview"
	export PATH=$KREW_ROOT/bin:$PATH
	run 0 "$bin/kubectl" plugin list
	has "$KREW_ROOT/bin/kubectl-chunkview"
	demo_checks kubectl "$bin/kubectl"
	passed
fi

echo "plugins: $npassed passed, 0 failed"
