//go:build tools

// Package flux names the two controllers this module builds, so that `go mod tidy` keeps what they need.
package flux

import (
	_ "github.com/fluxcd/kustomize-controller"
	_ "github.com/fluxcd/source-controller"
)
