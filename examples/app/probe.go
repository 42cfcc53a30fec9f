package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"
)

// probe asks each URL every 100 ms for the given seconds, from the process's first moment, and prints one
// line per answer: "<url> ok" or "<url> failed". What a pod reaches in its first second shows in its log.
func probe(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: app probe SECONDS URL...")
		return 2
	}
	seconds, err := strconv.Atoi(args[0])
	if err != nil || seconds < 1 || seconds > 120 {
		fmt.Fprintln(os.Stderr, "SECONDS must be a whole number from 1 to 120")
		return 2
	}
	client := &http.Client{Timeout: 300 * time.Millisecond}
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	for time.Now().Before(deadline) {
		for _, url := range args[1:] {
			outcome := "failed"
			if response, err := client.Get(url); err == nil {
				response.Body.Close()
				outcome = "ok"
			}
			fmt.Println(url, outcome)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0
}
