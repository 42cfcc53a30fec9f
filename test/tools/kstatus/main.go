// Command kstatus prints the kstatus verdict (Current, InProgress, Failed, ...) of each Kubernetes
// object it reads from stdin (JSON, one per line), one line per object: "<status>\t<message>". It runs the same
// code Flux's kustomize-controller runs for `wait: true` and healthChecks (fluxcd/cli-utils), so a
// test can ask "would Flux call this Berth object healthy?" without running Flux.
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Reads one JSON object per line, decoded as the API machinery decodes objects (integers as int64,
// which kstatus requires of metadata.generation and status.observedGeneration).
func main() {
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for lines.Scan() {
		if len(lines.Bytes()) == 0 {
			continue
		}
		object := &unstructured.Unstructured{}
		if err := object.UnmarshalJSON(lines.Bytes()); err != nil {
			fmt.Fprintf(os.Stderr, "kstatus: reading an object: %v\n", err)
			os.Exit(2)
		}
		result, err := status.Compute(object)
		if err != nil {
			fmt.Fprintf(os.Stderr, "kstatus: %v\n", err)
			os.Exit(2)
		}
		fmt.Printf("%s\t%s\n", result.Status, result.Message)
	}
	if err := lines.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: %v\n", err)
		os.Exit(2)
	}
}
