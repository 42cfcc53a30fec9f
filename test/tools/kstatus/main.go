// Command kstatus prints the kstatus verdict (Current, InProgress, Failed, ...) of each Kubernetes
// object it reads as JSON from stdin, one line per object: "<status>\t<message>". It runs the same
// code Flux's kustomize-controller runs for `wait: true` and healthChecks (fluxcd/cli-utils), so a
// test can ask "would Flux call this Berth object healthy?" without running Flux.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func main() {
	decoder := json.NewDecoder(os.Stdin)
	for {
		var object map[string]any
		if err := decoder.Decode(&object); err == io.EOF {
			return
		} else if err != nil {
			fmt.Fprintf(os.Stderr, "kstatus: reading an object: %v\n", err)
			os.Exit(2)
		}
		result, err := status.Compute(&unstructured.Unstructured{Object: object})
		if err != nil {
			fmt.Fprintf(os.Stderr, "kstatus: %v\n", err)
			os.Exit(2)
		}
		fmt.Printf("%s\t%s\n", result.Status, result.Message)
	}
}
