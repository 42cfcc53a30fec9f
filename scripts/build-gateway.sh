#!/usr/bin/env bash
# Builds the embedded node's Gateway from the Go module proxy into a cache outside git (the same cache
# root as the node): Traefik, the Gateway API implementation (pinned in test/gateway/traefik/go.mod, a
# wrapper module that repeats Traefik's replace and exclude directives), and the Gateway API CRDs of the
# standard channel (pinned in test/gateway/crds/go.mod). A build is reused until the pins, this script
# or the Go toolchain change. Prints the bin directory on the last line; the CRDs are in its crds/.
#
# Traefik is built from a copy of its module with two cuts: ACME's DNS challenge, whose ~190 providers
# (each with its cloud's SDK) are about a third of the build, and the AWS ECS provider (below). The node's
# certificates come from cert-manager, and ACME's HTTP and TLS challenges stay; a DNS challenge or an ECS
# provider asked of this Traefik fails with an error that says why.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$0" "$root"/test/gateway/*/go.mod "$root"/test/gateway/*/go.sum <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build gateway "$key"

wrapper="$root/test/gateway/traefik"
cd "$wrapper"
module=github.com/traefik/traefik/v3
version=$(GOFLAGS=-mod=mod go list -m -f '{{.Version}}' "$module")
echo "building Traefik $version into $bin (first time: about 5 min on 2 cores)" >&2
start=$SECONDS
src="$tmp/src"
mkdir -p "$src"
cp -r "$(module_dir "$module")" "$src/traefik"
chmod -R u+w "$src/traefik"
acme="$src/traefik/pkg/provider/acme/provider.go"
sed -i '\#"github.com/go-acme/lego/v4/providers/dns"#d' "$acme"
sed -i 's#provider, err = dns.NewDNSChallengeProviderByName(p.DNSChallenge.Provider)#err = fmt.Errorf("DNS challenge provider %s: not built into this Traefik (the node issues its certificates with cert-manager)", p.DNSChallenge.Provider)#' "$acme"
grep -q 'not built into this Traefik' "$acme" || { echo "Traefik: the DNS challenge cut no longer applies to $acme" >&2; exit 1; }
# The second cut: the AWS ECS provider. Its AWS SDK (EC2, SSM and ECS clients: the EC2 client alone is one
# 12 MB package, the kind the Go compiler handles worst) is a quarter of what is left of the build. The node's
# Gateway reads the Gateway API only; a configuration naming providers.ecs still parses (same fields) and
# fails at Init, saying why.
ecs="$src/traefik/pkg/provider/ecs"
provider_struct=$(sed -n '/^type Provider struct {/,/^}/p' "$ecs/ecs.go" | grep -v 'defaultRuleTpl')
grep -q 'Ecs  *\*ecs.Provider' "$src/traefik/pkg/config/static/static_config.go" && [[ -n $provider_struct ]] ||
  { echo "Traefik: the ECS cut no longer applies" >&2; exit 1; }
rm -f "$ecs"/*.go
{
  cat <<'GO'
// Package ecs: Traefik's AWS ECS provider, not built into this Traefik (scripts/build-gateway.sh).
package ecs

import (
	"errors"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/safe"
)

GO
  printf '// Provider keeps the upstream configuration fields.\n%s\n\n' "$provider_struct"
  cat <<'GO'
// SetDefaults sets nothing: the provider is not built.
func (p *Provider) SetDefaults() {}

// Init fails: the provider is not built into this Traefik.
func (p *Provider) Init() error {
	return errors.New("the ECS provider is not built into this Traefik (the node's Gateway reads the Gateway API)")
}

// Provide fails as Init does.
func (p *Provider) Provide(chan<- dynamic.Message, *safe.Pool) error { return p.Init() }
GO
} >"$ecs/ecs.go"
# The wrapper module, built against the cut copy.
cp "$wrapper"/go.mod "$wrapper"/go.sum "$wrapper"/tools.go "$src/"
echo "replace $module => ./traefik" >>"$src/go.mod"
(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "-s -w -X $module/pkg/version.Version=$version" \
  -o "$tmp/traefik" "$module/cmd/traefik") >&2
rm -rf "$src"
echo "  built in $((SECONDS - start))s" >&2

cd "$root/test/gateway/crds"
crds=$(module_dir sigs.k8s.io/gateway-api)/config/crd/standard
mkdir -p "$tmp/crds"
# The CRDs alone: the channel's ValidatingAdmissionPolicy guards upgrades across channels, which this
# node never makes.
cp "$crds"/gateway.networking.k8s.io_*.yaml "$tmp/crds/"
rm -f "$tmp/crds/gateway.networking.k8s.io_vap_safeupgrades.yaml"
finish_cached_build
