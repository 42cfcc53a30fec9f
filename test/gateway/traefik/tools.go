//go:build tools

// Keeps Traefik's command in this module's build list, so `go mod tidy` records every module it needs.
package tools

import _ "github.com/traefik/traefik/v3/cmd/traefik"
