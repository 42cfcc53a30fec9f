//go:build tools

// Package buildkit pins the image builder of Berth's build Jobs: BuildKit's daemon and client, built by
// scripts/build-buildkit.sh. BuildKit's own go.mod carries exclude directives, so `go install pkg@version`
// refuses it; this module requires it instead.
package buildkit

import (
	_ "github.com/moby/buildkit/cmd/buildctl"
	_ "github.com/moby/buildkit/cmd/buildkitd"
)
