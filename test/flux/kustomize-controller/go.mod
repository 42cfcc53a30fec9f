// Pins Flux's kustomize-controller for the GitOps suite (scripts/build-flux.sh builds it). Its own go.mod carries
// replace directives, which `go install pkg@version` refuses: this module requires it and repeats them.
module berth.local/flux-kustomize-controller

go 1.25.0

require github.com/fluxcd/kustomize-controller v1.6.0
replace github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20220411205349-bde1400a84be
replace (
	sigs.k8s.io/kustomize/api => sigs.k8s.io/kustomize/api v0.19.0
	sigs.k8s.io/kustomize/kyaml => sigs.k8s.io/kustomize/kyaml v0.19.0
)
replace gopkg.in/yaml.v3 => gopkg.in/yaml.v3 v3.0.1
