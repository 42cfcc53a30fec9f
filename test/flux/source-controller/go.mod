// Pins Flux's source-controller for the GitOps suite (scripts/build-flux.sh builds it). Its own go.mod carries
// replace directives, which `go install pkg@version` refuses: this module requires it and repeats them.
module berth.local/flux-source-controller

go 1.25.0

require github.com/fluxcd/source-controller v1.7.0
replace github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20220411205349-bde1400a84be
